/* mnemo for Obsidian: built from src/ by esbuild (npm run build); edit the TypeScript, not this file. */
"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);

// src/main.ts
var main_exports = {};
__export(main_exports, {
  default: () => MnemoPlugin
});
module.exports = __toCommonJS(main_exports);
var import_obsidian5 = require("obsidian");

// src/client.ts
var import_obsidian = require("obsidian");

// src/endpoint.ts
var fs = __toESM(require("fs"));
var os = __toESM(require("os"));
var path = __toESM(require("path"));
function defaultHome(env = process.env, platform = process.platform) {
  if (env.MNEMO_HOME) return env.MNEMO_HOME;
  const home = os.homedir();
  if (platform === "darwin") return path.join(home, "Library", "Application Support", "mnemo");
  if (platform === "win32") return path.join(env.LOCALAPPDATA || path.join(home, "AppData", "Local"), "mnemo");
  return path.join(env.XDG_DATA_HOME || path.join(home, ".local", "share"), "mnemo");
}
function endpointFile(home) {
  return path.join(home, "daemon.json");
}
function readEndpoint(home) {
  let data;
  try {
    data = JSON.parse(fs.readFileSync(endpointFile(home), "utf8"));
  } catch {
    return null;
  }
  if (!data || typeof data.port !== "number" || typeof data.token !== "string") return null;
  const host = typeof data.host === "string" && data.host.includes(":") ? `[${data.host}]` : data.host || "127.0.0.1";
  return { url: `http://${host}:${data.port}`, token: data.token, home, vault: data.vault ?? null, pid: data.pid };
}

// src/client.ts
var MnemoError = class extends Error {
  constructor(problem, message, fix) {
    super(message);
    this.problem = problem;
    this.fix = fix;
  }
};
var START_FIX = "start it in a terminal: mnemo daemon start";
var MnemoClient = class {
  constructor(conn) {
    this.conn = conn;
  }
  home() {
    return this.conn().home || defaultHome();
  }
  endpoint() {
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
  async get(route) {
    return this.request("GET", route);
  }
  /** Call one engine operation; resolves to its `result`. */
  async call(op, args = {}) {
    const body = await this.request("POST", `/v1/${op}`, args);
    return body.result;
  }
  async request(method, route, args) {
    const ep = this.endpoint();
    let res;
    try {
      res = await (0, import_obsidian.requestUrl)({
        url: ep.url + route,
        method,
        throw: false,
        contentType: "application/json",
        headers: { Authorization: `Bearer ${ep.token}` },
        body: args === void 0 ? void 0 : JSON.stringify(args)
      });
    } catch (err) {
      throw new MnemoError("down", `the mnemo daemon does not answer at ${ep.url} (${err.message})`, START_FIX);
    }
    let body = null;
    try {
      body = res.json;
    } catch {
      body = null;
    }
    if (res.status === 401) {
      throw new MnemoError(
        "auth",
        "the mnemo daemon refused the token",
        `clear the token in the mnemo plugin settings so it is read from ${endpointFile(ep.home)}, or restart the daemon: mnemo daemon stop; mnemo daemon start`
      );
    }
    if (res.status < 200 || res.status >= 300) {
      const msg = body?.message || `HTTP ${res.status}`;
      throw new MnemoError("error", `mnemo: ${msg}`, body?.hint || "see daemon.log in MNEMO_HOME");
    }
    return body;
  }
};

// src/modals.ts
var import_obsidian2 = require("obsidian");

// src/format.ts
function age(createdAt, now = Date.now() / 1e3) {
  if (!createdAt) return "";
  const s = Math.max(0, now - createdAt);
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))}m`;
  if (s < 86400) return `${Math.round(s / 3600)}h`;
  if (s < 86400 * 60) return `${Math.round(s / 86400)}d`;
  if (s < 86400 * 730) return `${Math.round(s / (86400 * 30))}mo`;
  return `${Math.round(s / (86400 * 365))}y`;
}
function kind(hit) {
  if (hit.type) return hit.type;
  return hit.tier === "ltm" ? "note" : "memory";
}
function noteName(path2) {
  return (path2.split("/").pop() || path2).replace(/\.md$/i, "");
}
function section(hit) {
  if (!hit.path || !hit.heading) return null;
  return hit.heading.trim().toLowerCase() === noteName(hit.path).toLowerCase() ? null : hit.heading;
}
function title(hit) {
  if (hit.path) {
    const t = noteName(hit.path);
    const h = section(hit);
    return h ? `${t} \u203A ${h}` : t;
  }
  const first = hit.content.split("\n").find((l) => l.trim()) || "";
  return first.length > 80 ? first.slice(0, 77) + "\u2026" : first;
}
function snippet(hit, n = 160) {
  const text = hit.content.replace(/\s+/g, " ").trim();
  return text.length > n ? text.slice(0, n - 1) + "\u2026" : text;
}
function quote(hit) {
  const lines = hit.content.trim().split("\n").map((l) => `> ${l}`);
  const from = hit.path ? `[[${hit.path.replace(/\.md$/i, "")}]]` : `mnemo memory ${hit.id.slice(0, 8)}`;
  return `${lines.join("\n")}
> \u2014 ${from}
`;
}
function link(hit) {
  if (!hit.path) return null;
  const target = hit.path.replace(/\.md$/i, "");
  const h = section(hit);
  return h ? `[[${target}#${h}]]` : `[[${target}]]`;
}

// src/modals.ts
var MemoryModal = class extends import_obsidian2.Modal {
  constructor(app, plugin, hit) {
    super(app);
    this.plugin = plugin;
    this.hit = hit;
  }
  onOpen() {
    const { contentEl, hit } = this;
    this.titleEl.setText(`mnemo ${kind(hit)} ${hit.id.slice(0, 8)}`);
    contentEl.empty();
    contentEl.createDiv({ cls: "mnemo-memory-text", text: hit.content });
    const meta = [hit.tier, kind(hit), age(hit.created_at), hit.status || "", (hit.tags || []).map((t) => `#${t}`).join(" ")];
    contentEl.createDiv({ cls: "mnemo-hit-meta", text: meta.filter(Boolean).join(" \xB7 ") });
    const bar = contentEl.createDiv({ cls: "mnemo-actions" });
    this.action(bar, "Pin", "pin", "pinned");
    this.action(bar, "Forget", "forget", "forgotten (mnemo restore brings it back)");
    this.action(bar, "Promote", "promote", "promoted into the vault");
  }
  action(bar, label, op, done) {
    const b = bar.createEl("button", { text: label });
    b.addEventListener("click", async () => {
      try {
        await this.plugin.call(op, { memory_id: this.hit.id });
        new import_obsidian2.Notice(`mnemo: memory ${this.hit.id.slice(0, 8)} ${done}`);
        this.close();
        void this.plugin.refreshPane();
      } catch (err) {
        this.plugin.report(err);
      }
    });
  }
  onClose() {
    this.contentEl.empty();
  }
};
var RecallModal = class extends import_obsidian2.SuggestModal {
  constructor(app, plugin, editor) {
    super(app);
    this.plugin = plugin;
    this.editor = editor;
    this.setPlaceholder("Recall from mnemo\u2026");
    this.setInstructions([
      { command: "\u21B5", purpose: "insert as a link (a quote for a memory without a note)" },
      { command: "shift \u21B5", purpose: "insert as a quote" }
    ]);
  }
  async getSuggestions(query) {
    if (!query.trim()) return [];
    try {
      return await this.plugin.call("recall", { query, k: this.plugin.settings.k, touch: false });
    } catch (err) {
      this.plugin.report(err);
      return [];
    }
  }
  renderSuggestion(hit, el) {
    el.createDiv({ cls: "mnemo-hit-title", text: title(hit) });
    el.createDiv({ cls: "mnemo-hit-meta", text: [hit.tier, kind(hit), age(hit.created_at), hit.score.toFixed(2)].filter(Boolean).join(" \xB7 ") });
    el.createEl("small", { cls: "mnemo-hit-text", text: snippet(hit, 120) });
  }
  onChooseSuggestion(hit, evt) {
    const text = evt.shiftKey ? quote(hit) : link(hit) ?? quote(hit);
    if (this.editor) this.editor.replaceSelection(text);
    else void navigator.clipboard?.writeText(text);
    const memoryId = hit.status ? hit.id : hit.meta?.mnemo_id;
    if (memoryId && !String(memoryId).includes(":")) void this.plugin.call("touch", { memory_id: memoryId }).catch(() => void 0);
  }
};

// src/settings.ts
var import_obsidian3 = require("obsidian");
var DEFAULTS = { home: "", url: "", token: "", saveToken: false, k: 10, debounceMs: 1200 };
var MnemoSettingTab = class extends import_obsidian3.PluginSettingTab {
  constructor(app, plugin) {
    super(app, plugin);
    this.plugin = plugin;
  }
  display() {
    const { containerEl } = this;
    const s = this.plugin.settings;
    containerEl.empty();
    new import_obsidian3.Setting(containerEl).setName("mnemo home").setDesc(`Where the daemon keeps daemon.json. Empty: ${defaultHome()} (MNEMO_HOME when set).`).addText((t) => t.setPlaceholder(defaultHome()).setValue(s.home).onChange(async (v) => {
      s.home = v.trim();
      await this.plugin.saveSettings();
    }));
    new import_obsidian3.Setting(containerEl).setName("API address").setDesc(`Empty: read from ${endpointFile(this.plugin.client.home())}. Only a loopback address makes sense.`).addText((t) => t.setPlaceholder("http://127.0.0.1:PORT").setValue(s.url).onChange(async (v) => {
      s.url = v.trim();
      await this.plugin.saveSettings();
    }));
    new import_obsidian3.Setting(containerEl).setName("Token").setDesc("Empty: read from daemon.json (recommended). A token typed here stays on this device unless saved below.").addText((t) => {
      t.inputEl.type = "password";
      t.setValue(this.plugin.token()).onChange(async (v) => {
        await this.plugin.setToken(v.trim());
      });
    });
    new import_obsidian3.Setting(containerEl).setName("Save the token in the vault's settings").setDesc("Off: the token is never written into the vault (a sync service would copy it to every device).").addToggle((t) => t.setValue(s.saveToken).onChange(async (v) => {
      s.saveToken = v;
      await this.plugin.setToken(this.plugin.token());
    }));
    new import_obsidian3.Setting(containerEl).setName("Results in the pane").addSlider((sl) => sl.setLimits(3, 30, 1).setValue(s.k).setDynamicTooltip().onChange(async (v) => {
      s.k = v;
      await this.plugin.saveSettings();
    }));
  }
};

// src/view.ts
var import_obsidian4 = require("obsidian");
var VIEW_TYPE = "mnemo-related";
var RelatedView = class extends import_obsidian4.ItemView {
  constructor(leaf, plugin) {
    super(leaf);
    this.plugin = plugin;
    this.hits = [];
    this.source = null;
    this.error = null;
    this.seq = 0;
  }
  getViewType() {
    return VIEW_TYPE;
  }
  getDisplayText() {
    return "mnemo";
  }
  getIcon() {
    return "brain-circuit";
  }
  async onOpen() {
    this.addAction("refresh-cw", "Refresh (on the selection, when there is one)", () => void this.plugin.refreshPane());
    this.render();
  }
  async onClose() {
    this.contentEl.empty();
  }
  /** Ask the daemon what is related to this note (or selection) and show it. A newer request
   * wins over one still in flight. */
  async show(source) {
    const seq = ++this.seq;
    this.source = source;
    if (!source) {
      this.hits = [];
      this.error = null;
      this.render();
      return;
    }
    const args = { path: source.file.path, k: this.plugin.settings.k };
    if (source.selection) args.text = source.selection;
    else if (source.content !== void 0) args.content = source.content;
    try {
      const result = await this.plugin.call("related", args, true);
      if (seq !== this.seq) return;
      this.hits = result.hits;
      this.error = null;
    } catch (err) {
      if (seq !== this.seq) return;
      this.hits = [];
      this.error = err.message;
    }
    this.render();
  }
  render() {
    const el = this.contentEl;
    el.empty();
    el.addClass("mnemo-pane");
    const head = el.createDiv({ cls: "mnemo-pane-head" });
    if (!this.source) {
      head.setText("Open a note to see what mnemo knows about it.");
      return;
    }
    head.setText(this.source.selection ? "Related to the selection" : `Related to ${this.source.file.basename}`);
    if (this.error) {
      el.createDiv({ cls: "mnemo-error", text: this.error });
      return;
    }
    if (!this.hits.length) {
      el.createDiv({ cls: "mnemo-empty", text: "Nothing related yet." });
      return;
    }
    const list = el.createDiv({ cls: "mnemo-hits" });
    for (const hit of this.hits) {
      const row = list.createDiv({ cls: "mnemo-hit" });
      row.setAttr("data-id", hit.id);
      if (hit.path) row.setAttr("data-path", hit.path);
      const top = row.createDiv({ cls: "mnemo-hit-title", text: title(hit) });
      top.addEventListener("click", () => this.open(hit));
      const badges = row.createDiv({ cls: "mnemo-hit-meta" });
      badges.createSpan({ cls: `mnemo-badge mnemo-tier-${hit.tier}`, text: hit.tier });
      badges.createSpan({ cls: "mnemo-badge", text: kind(hit) });
      const a = age(hit.created_at);
      if (a) badges.createSpan({ cls: "mnemo-badge", text: a });
      badges.createSpan({ cls: "mnemo-score", text: hit.score.toFixed(2) });
      row.createDiv({ cls: "mnemo-hit-text", text: snippet(hit) });
    }
  }
  /** A note opens in the workspace; a memory without a note opens in a modal. */
  open(hit) {
    if (hit.path) {
      void this.app.workspace.openLinkText(hit.path, this.source?.file.path ?? "", false);
      return;
    }
    new MemoryModal(this.app, this.plugin, hit).open();
  }
};

// src/main.ts
var TOKEN_KEY = "mnemo-token";
var MnemoPlugin = class extends import_obsidian5.Plugin {
  constructor() {
    super(...arguments);
    this.settings = { ...DEFAULTS };
    /** ok, or the problem last met: a notice is shown when this changes, not on every request. */
    this.state = "unknown";
    /** The pane's last refresh (tests and callers can wait for it). */
    this.pending = Promise.resolve();
    this.sessionToken = "";
  }
  async onload() {
    this.settings = { ...DEFAULTS, ...await this.loadData() ?? {} };
    this.sessionToken = this.settings.saveToken ? this.settings.token : this.localToken();
    this.client = new MnemoClient(() => ({ home: this.settings.home, url: this.settings.url, token: this.token() }));
    this.registerView(VIEW_TYPE, (leaf) => new RelatedView(leaf, this));
    this.addRibbonIcon("brain-circuit", "Open the mnemo pane", () => void this.activateView());
    this.statusEl = this.addStatusBarItem();
    this.statusEl.addClass("mnemo-status");
    this.statusEl.setText("mnemo \u2026");
    this.statusEl.addEventListener("click", () => void this.showStatus());
    this.addCommand({ id: "open-pane", name: "Open the related pane", callback: () => void this.activateView() });
    this.addCommand({
      id: "save-selection",
      name: "Save selection as memory",
      editorCallback: (editor, ctx) => this.saveSelection(editor, ctx.file ?? null)
    });
    this.addCommand({
      id: "recall",
      name: "Recall\u2026",
      callback: () => new RecallModal(this.app, this, this.app.workspace.getActiveViewOfType(import_obsidian5.MarkdownView)?.editor ?? null).open()
    });
    this.addCommand({ id: "promote-now", name: "Promote memories now", callback: () => void this.promoteNow() });
    this.addCommand({ id: "show-status", name: "Show mnemo status", callback: () => void this.showStatus() });
    this.addSettingTab(new MnemoSettingTab(this.app, this));
    this.registerEvent(this.app.workspace.on("file-open", (file) => void this.refreshPane(file)));
    const onEdit = (0, import_obsidian5.debounce)(() => void this.refreshPane(), this.settings.debounceMs, true);
    this.registerEvent(this.app.workspace.on("editor-change", () => onEdit()));
    this.registerInterval(globalThis.setInterval(() => void this.refreshStatus(), 6e4));
    this.app.workspace.onLayoutReady(() => void this.refreshStatus());
  }
  onunload() {
  }
  // -- settings and the token ---------------------------------------------------------------
  token() {
    return this.sessionToken;
  }
  localToken() {
    try {
      return globalThis.localStorage?.getItem(TOKEN_KEY) ?? "";
    } catch {
      return "";
    }
  }
  async setToken(token) {
    this.sessionToken = token;
    try {
      if (this.settings.saveToken || !token) globalThis.localStorage?.removeItem(TOKEN_KEY);
      else globalThis.localStorage?.setItem(TOKEN_KEY, token);
    } catch {
    }
    await this.saveSettings();
  }
  async saveSettings() {
    const data = { ...this.settings, token: this.settings.saveToken ? this.sessionToken : "" };
    await this.saveData(data);
  }
  // -- talking to the daemon ----------------------------------------------------------------
  /** One operation; a daemon that is down or refuses the token gives one clear notice. */
  async call(op, args = {}, quiet = false) {
    try {
      const result = await this.client.call(op, args);
      this.setState("ok");
      return result;
    } catch (err) {
      if (!quiet || !(err instanceof MnemoError) || err.problem !== "error") this.report(err);
      throw err;
    }
  }
  report(err) {
    if (err instanceof MnemoError) {
      if (err.problem !== "error") {
        const changed = this.setState(err.problem);
        if (changed) new import_obsidian5.Notice(`${err.message}. Fix: ${err.fix}`, 15e3);
        return;
      }
      new import_obsidian5.Notice(`${err.message}${err.fix ? ` (${err.fix})` : ""}`, 8e3);
      return;
    }
    new import_obsidian5.Notice(`mnemo: ${err?.message ?? String(err)}`, 8e3);
  }
  setState(state) {
    if (state === "error") return false;
    const changed = state !== this.state;
    this.state = state;
    if (state === "down") this.statusEl.setText("mnemo: off");
    else if (state === "auth") this.statusEl.setText("mnemo: token refused");
    return changed;
  }
  async refreshStatus() {
    try {
      const s = await this.client.get("/v1/status");
      this.setState("ok");
      const n = s?.counts?.memories ?? 0;
      this.statusEl.setText(`mnemo ${s.warm ? "\u25CF" : "\u25CB"} ${n.toLocaleString("en")} memories`);
      this.statusEl.setAttr("aria-label", `mnemo daemon ${s.url} (${s.warm ? "warm" : "warming up"})`);
      return s;
    } catch (err) {
      this.report(err);
      return null;
    }
  }
  // -- the pane -----------------------------------------------------------------------------
  view() {
    for (const leaf of this.app.workspace.getLeavesOfType(VIEW_TYPE)) {
      if (leaf.view instanceof RelatedView) return leaf.view;
    }
    return null;
  }
  async activateView() {
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
  async refreshPane(file) {
    const view = this.view();
    if (!view) return;
    const f = file ?? this.app.workspace.getActiveFile();
    const run = async () => {
      if (!f || f.extension !== "md") return view.show(null);
      const mv = this.app.workspace.getActiveViewOfType(import_obsidian5.MarkdownView);
      if (mv && mv.file?.path === f.path) {
        const selection = mv.editor.getSelection();
        return view.show({ file: f, content: mv.editor.getValue(), selection: selection.trim() ? selection : void 0 });
      }
      return view.show({ file: f, content: await this.app.vault.cachedRead(f) });
    };
    this.pending = run();
    await this.pending;
  }
  // -- commands -----------------------------------------------------------------------------
  /** The note's tags (frontmatter and inline, without '#'). */
  noteTags(file) {
    const cache = file ? this.app.metadataCache.getFileCache(file) : null;
    const tags = cache ? (0, import_obsidian5.getAllTags)(cache) ?? [] : [];
    return [...new Set(tags.map((t) => t.replace(/^#/, "")).filter(Boolean))];
  }
  async saveSelection(editor, file) {
    const text = editor.getSelection().trim();
    if (!text) {
      new import_obsidian5.Notice("mnemo: select the passage to remember first");
      return null;
    }
    try {
      const r = await this.call("save", { content: text, tags: this.noteTags(file), meta: file ? { note: file.path } : null });
      const id = r.memory.id.slice(0, 8);
      new import_obsidian5.Notice(r.created ? `mnemo: saved as memory ${id}` : `mnemo: already remembered (memory ${id})`);
      void this.refreshPane();
      return r;
    } catch {
      return null;
    }
  }
  async promoteNow() {
    try {
      const results = await this.call("promote", { auto: true });
      const done = results.filter((r) => r.status === "created" || r.status === "updated");
      new import_obsidian5.Notice(done.length ? `mnemo promoted ${done.length}: ${done.map((r) => r.path).join(", ")}` : "mnemo: nothing is ready to be promoted");
      return results;
    } catch {
      return null;
    }
  }
  async showStatus() {
    const s = await this.refreshStatus();
    if (!s) return null;
    const base = this.app.vault.adapter?.getBasePath?.();
    const lines = [
      `mnemo ${s.version} at ${s.url} (pid ${s.pid})`,
      s.warm ? "warm" : "warming up",
      `${s.counts?.memories ?? 0} memories, ${s.counts?.notes ?? 0} notes indexed`
    ];
    if (s.vault && base && s.vault !== base) lines.push(`note: the daemon serves the vault ${s.vault}, not this one`);
    new import_obsidian5.Notice(lines.join("\n"), 1e4);
    return s;
  }
  openMemory(hit) {
    new MemoryModal(this.app, this, hit).open();
  }
};
