// Where the daemon listens and the token it wants: MNEMO_HOME/daemon.json, written by
// `mnemo daemon start` (mode 0600) and removed when it stops. The plugin runs on the desktop,
// next to the daemon, so it reads the file directly; nothing is copied into the vault.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

export interface Endpoint {
  url: string;
  token: string;
  home: string;
  vault?: string | null;
  pid?: number;
}

/** MNEMO_HOME as the daemon resolves it: the variable, else the platform's user data folder
 * (platformdirs' user_data_dir("mnemo")). */
export function defaultHome(env: NodeJS.ProcessEnv = process.env, platform: string = process.platform): string {
  if (env.MNEMO_HOME) return env.MNEMO_HOME;
  const home = os.homedir();
  if (platform === "darwin") return path.join(home, "Library", "Application Support", "mnemo");
  if (platform === "win32") return path.join(env.LOCALAPPDATA || path.join(home, "AppData", "Local"), "mnemo");
  return path.join(env.XDG_DATA_HOME || path.join(home, ".local", "share"), "mnemo");
}

export function endpointFile(home: string): string {
  return path.join(home, "daemon.json");
}

/** The running daemon's endpoint, or null when there is no (readable) daemon.json. */
export function readEndpoint(home: string): Endpoint | null {
  let data: any;
  try {
    data = JSON.parse(fs.readFileSync(endpointFile(home), "utf8"));
  } catch {
    return null;
  }
  if (!data || typeof data.port !== "number" || typeof data.token !== "string") return null;
  const host = typeof data.host === "string" && data.host.includes(":") ? `[${data.host}]` : data.host || "127.0.0.1";
  return { url: `http://${host}:${data.port}`, token: data.token, home, vault: data.vault ?? null, pid: data.pid };
}
