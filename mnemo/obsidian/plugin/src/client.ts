// The daemon's loopback API (docs/API.md): POST /v1/<operation> with a JSON body and the
// bearer token. Obsidian's requestUrl is used (not fetch): it is not subject to CORS, and the
// daemon sends no CORS headers on purpose.
import { requestUrl } from "obsidian";
import { Endpoint, defaultHome, endpointFile, readEndpoint } from "./endpoint";

export type Problem = "down" | "auth" | "error";

export class MnemoError extends Error {
  constructor(public problem: Problem, message: string, public fix: string) {
    super(message);
  }
}

export interface Hit {
  id: string;
  score: number;
  content: string;
  tier: "stm" | "ltm";
  type?: string | null;
  status?: string | null;
  tags?: string[];
  path?: string | null;
  heading?: string | null;
  meta?: Record<string, any>;
  created_at?: number | null;
  reason?: string;
}

export interface Connection {
  /** MNEMO_HOME to read daemon.json from ("" = the default). */
  home: string;
  /** The API address, overriding daemon.json ("" = from daemon.json). */
  url: string;
  /** The token, overriding daemon.json ("" = from daemon.json). */
  token: string;
}

export const START_FIX = "start it in a terminal: mnemo daemon start";

export class MnemoClient {
  constructor(private conn: () => Connection) {}

  home(): string {
    return this.conn().home || defaultHome();
  }

  endpoint(): Endpoint {
    const c = this.conn();
    const home = this.home();
    const ep = readEndpoint(home);
    const url = (c.url || ep?.url || "").replace(/\/+$/, "");
    const token = c.token || ep?.token || "";
    if (!url || !token) {
      throw new MnemoError("down", `the mnemo daemon is not running (no ${endpointFile(home)})`, START_FIX);
    }
    return { url, token, home, vault: ep?.vault ?? null, pid: ep?.pid };
  }

  async get(route: string): Promise<any> {
    return this.request("GET", route);
  }

  /** Call one engine operation; resolves to its `result`. */
  async call<T = any>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    const body = await this.request("POST", `/v1/${op}`, args);
    return body.result as T;
  }

  private async request(method: string, route: string, args?: Record<string, unknown>): Promise<any> {
    const ep = this.endpoint();
    let res;
    try {
      res = await requestUrl({
        url: ep.url + route,
        method,
        throw: false,
        contentType: "application/json",
        headers: { Authorization: `Bearer ${ep.token}` },
        body: args === undefined ? undefined : JSON.stringify(args),
      });
    } catch (err) {
      throw new MnemoError("down", `the mnemo daemon does not answer at ${ep.url} (${(err as Error).message})`, START_FIX);
    }
    let body: any = null;
    try {
      body = res.json;
    } catch {
      body = null;
    }
    if (res.status === 401) {
      throw new MnemoError(
        "auth",
        "the mnemo daemon refused the token",
        `clear the token in the mnemo plugin settings so it is read from ${endpointFile(ep.home)}, ` +
          "or restart the daemon: mnemo daemon stop; mnemo daemon start",
      );
    }
    if (res.status < 200 || res.status >= 300) {
      const msg = body?.message || `HTTP ${res.status}`;
      throw new MnemoError("error", `mnemo: ${msg}`, body?.hint || "see daemon.log in MNEMO_HOME");
    }
    return body;
  }
}
