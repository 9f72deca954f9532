// mnemo inside Obsidian: a thin client of the mnemo daemon's loopback API. It reads; the daemon
// writes (with its safe writer). This plugin never writes a vault file itself.
import { Editor, MarkdownFileInfo, MarkdownView, Notice, Plugin, TFile, debounce, getAllTags } from "obsidian";
import { MnemoClient, MnemoError, Problem } from "./client";
import { MemoryModal, RecallModal } from "./modals";
import { DEFAULTS, MnemoSettingTab, MnemoSettings } from "./settings";
import { RelatedView, VIEW_TYPE } from "./view";

const TOKEN_KEY = "mnemo-token";

export default class MnemoPlugin extends Plugin {
  settings: MnemoSettings = { ...DEFAULTS };
  client!: MnemoClient;
  statusEl!: HTMLElement;
  /** ok, or the problem last met: a notice is shown when this changes, not on every request. */
  state: "unknown" | "ok" | Problem = "unknown";
  /** The pane's last refresh (tests and callers can wait for it). */
  pending: Promise<void> = Promise.resolve();
  private sessionToken = "";

  async onload(): Promise<void> {
    this.settings = { ...DEFAULTS, ...((await this.loadData()) ?? {}) };
    this.sessionToken = this.settings.saveToken ? this.settings.token : this.localToken();
    this.client = new MnemoClient(() => ({ home: this.settings.home, url: this.settings.url, token: this.token() }));
    this.registerView(VIEW_TYPE, (leaf) => new RelatedView(leaf, this));
    this.addRibbonIcon("brain-circuit", "Open the mnemo pane", () => void this.activateView());
    this.statusEl = this.addStatusBarItem();
    this.statusEl.addClass("mnemo-status");
    this.statusEl.setText("mnemo …");
    this.statusEl.addEventListener("click", () => void this.showStatus());

    this.addCommand({ id: "open-pane", name: "Open the related pane", callback: () => void this.activateView() });
    this.addCommand({
      id: "save-selection",
      name: "Save selection as memory",
      editorCallback: (editor: Editor, ctx: MarkdownView | MarkdownFileInfo) => this.saveSelection(editor, ctx.file ?? null),
    });
    this.addCommand({
      id: "recall",
      name: "Recall…",
      callback: () => new RecallModal(this.app, this, this.app.workspace.getActiveViewOfType(MarkdownView)?.editor ?? null).open(),
    });
    this.addCommand({ id: "promote-now", name: "Promote memories now", callback: () => void this.promoteNow() });
    this.addCommand({ id: "show-status", name: "Show mnemo status", callback: () => void this.showStatus() });
    this.addSettingTab(new MnemoSettingTab(this.app, this));

    this.registerEvent(this.app.workspace.on("file-open", (file: TFile | null) => void this.refreshPane(file)));
    const onEdit = debounce(() => void this.refreshPane(), this.settings.debounceMs, true);
    this.registerEvent(this.app.workspace.on("editor-change", () => onEdit()));
    this.registerInterval(globalThis.setInterval(() => void this.refreshStatus(), 60_000) as unknown as number);
    this.app.workspace.onLayoutReady(() => void this.refreshStatus());
  }

  onunload(): void {
    // Obsidian detaches the plugin's views itself.
  }

  // -- settings and the token ---------------------------------------------------------------
  token(): string {
    return this.sessionToken;
  }

  private localToken(): string {
    try {
      return globalThis.localStorage?.getItem(TOKEN_KEY) ?? "";
    } catch {
      return "";
    }
  }

  async setToken(token: string): Promise<void> {
    this.sessionToken = token;
    try {
      if (this.settings.saveToken || !token) globalThis.localStorage?.removeItem(TOKEN_KEY);
      else globalThis.localStorage?.setItem(TOKEN_KEY, token);
    } catch {
      // no device storage: the token lasts for this session
    }
    await this.saveSettings();
  }

  async saveSettings(): Promise<void> {
    const data = { ...this.settings, token: this.settings.saveToken ? this.sessionToken : "" };
    await this.saveData(data);
  }

  // -- talking to the daemon ----------------------------------------------------------------
  /** One operation; a daemon that is down or refuses the token gives one clear notice. */
  async call<T = any>(op: string, args: Record<string, unknown> = {}, quiet = false): Promise<T> {
    try {
      const result = await this.client.call<T>(op, args);
      this.setState("ok");
      return result;
    } catch (err) {
      // ``quiet``: an ordinary error is shown where the request came from (the pane), not as a
      // notice on every refresh; a daemon that is down or refuses the token always notifies once.
      if (!quiet || !(err instanceof MnemoError) || err.problem !== "error") this.report(err);
      throw err;
    }
  }

  report(err: unknown): void {
    if (err instanceof MnemoError) {
      if (err.problem !== "error") {
        const changed = this.setState(err.problem);
        if (changed) new Notice(`${err.message}. Fix: ${err.fix}`, 15000);
        return;
      }
      new Notice(`${err.message}${err.fix ? ` (${err.fix})` : ""}`, 8000);
      return;
    }
    new Notice(`mnemo: ${(err as Error)?.message ?? String(err)}`, 8000);
  }

  private setState(state: "ok" | Problem): boolean {
    if (state === "error") return false;
    const changed = state !== this.state;
    this.state = state;
    if (state === "down") this.statusEl.setText("mnemo: off");
    else if (state === "auth") this.statusEl.setText("mnemo: token refused");
    return changed;
  }

  async refreshStatus(): Promise<any | null> {
    try {
      const s = await this.client.get("/v1/status");
      this.setState("ok");
      const n = s?.counts?.memories ?? 0;
      this.statusEl.setText(`mnemo ${s.warm ? "●" : "○"} ${n.toLocaleString("en")} memories`);
      this.statusEl.setAttr("aria-label", `mnemo daemon ${s.url} (${s.warm ? "warm" : "warming up"})`);
      return s;
    } catch (err) {
      this.report(err);
      return null;
    }
  }

  // -- the pane -----------------------------------------------------------------------------
  view(): RelatedView | null {
    for (const leaf of this.app.workspace.getLeavesOfType(VIEW_TYPE)) {
      if (leaf.view instanceof RelatedView) return leaf.view;
    }
    return null;
  }

  async activateView(): Promise<RelatedView | null> {
    let view = this.view();
    if (!view) {
      const leaf = this.app.workspace.getRightLeaf(false);
      if (!leaf) return null;
      await leaf.setViewState({ type: VIEW_TYPE, active: true });
      view = this.view();
    }
    if (view) {
      this.app.workspace.revealLeaf(view.leaf);
      await this.refreshPane();
    }
    return view;
  }

  /** Refresh the pane for the active note (or ``file``): its editor text, or its selection. */
  async refreshPane(file?: TFile | null): Promise<void> {
    const view = this.view();
    if (!view) return;
    const f = file ?? this.app.workspace.getActiveFile();
    const run = async (): Promise<void> => {
      if (!f || f.extension !== "md") return view.show(null);
      const mv = this.app.workspace.getActiveViewOfType(MarkdownView);
      if (mv && mv.file?.path === f.path) {
        const selection = mv.editor.getSelection();
        return view.show({ file: f, content: mv.editor.getValue(), selection: selection.trim() ? selection : undefined });
      }
      return view.show({ file: f, content: await this.app.vault.cachedRead(f) });
    };
    this.pending = run();
    await this.pending;
  }

  // -- commands -----------------------------------------------------------------------------
  /** The note's tags (frontmatter and inline, without '#'). */
  noteTags(file: TFile | null): string[] {
    const cache = file ? this.app.metadataCache.getFileCache(file) : null;
    const tags = cache ? getAllTags(cache) ?? [] : [];
    return [...new Set(tags.map((t) => t.replace(/^#/, "")).filter(Boolean))];
  }

  async saveSelection(editor: Editor, file: TFile | null): Promise<any | null> {
    const text = editor.getSelection().trim();
    if (!text) {
      new Notice("mnemo: select the passage to remember first");
      return null;
    }
    try {
      const r = await this.call("save", { content: text, tags: this.noteTags(file), meta: file ? { note: file.path } : null });
      const id = r.memory.id.slice(0, 8);
      new Notice(r.created ? `mnemo: saved as memory ${id}` : `mnemo: already remembered (memory ${id})`);
      void this.refreshPane();
      return r;
    } catch {
      return null;
    }
  }

  async promoteNow(): Promise<any[] | null> {
    try {
      const results = await this.call<any[]>("promote", { auto: true });
      const done = results.filter((r) => r.status === "created" || r.status === "updated");
      new Notice(done.length ? `mnemo promoted ${done.length}: ${done.map((r) => r.path).join(", ")}` : "mnemo: nothing is ready to be promoted");
      return results;
    } catch {
      return null;
    }
  }

  async showStatus(): Promise<any | null> {
    const s = await this.refreshStatus();
    if (!s) return null;
    const base = (this.app.vault.adapter as any)?.getBasePath?.();
    const lines = [
      `mnemo ${s.version} at ${s.url} (pid ${s.pid})`,
      s.warm ? "warm" : "warming up",
      `${s.counts?.memories ?? 0} memories, ${s.counts?.notes ?? 0} notes indexed`,
    ];
    if (s.vault && base && s.vault !== base) lines.push(`note: the daemon serves the vault ${s.vault}, not this one`);
    new Notice(lines.join("\n"), 10000);
    return s;
  }

  openMemory(hit: any): void {
    new MemoryModal(this.app, this, hit).open();
  }
}
