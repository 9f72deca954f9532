// A small stand-in for the `obsidian` module, enough to run the built plugin (main.js) under
// Node: elements record what the plugin renders, notices are collected, and requestUrl makes real
// HTTP requests (so the plugin talks to a real daemon).
"use strict";
const fs = require("fs");
const http = require("http");
const path = require("path");

class El {
  constructor(tag = "div") {
    this.tag = tag;
    this.children = [];
    this.text = "";
    this.classes = new Set();
    this.attrs = {};
    this.listeners = {};
    this.style = {};
  }
  createEl(tag, o = {}) {
    const e = new El(tag);
    if (o.cls) for (const c of String(o.cls).split(/\s+/)) if (c) e.classes.add(c);
    if (o.text !== undefined && o.text !== null) e.text = String(o.text);
    if (o.attr) Object.assign(e.attrs, o.attr);
    this.children.push(e);
    return e;
  }
  createDiv(o) { return this.createEl("div", o); }
  createSpan(o) { return this.createEl("span", o); }
  empty() { this.children = []; this.text = ""; }
  setText(t) { this.children = []; this.text = String(t); }
  addClass(c) { this.classes.add(c); }
  removeClass(c) { this.classes.delete(c); }
  toggleClass(c, on) { if (on) this.classes.add(c); else this.classes.delete(c); }
  setAttr(k, v) { this.attrs[k] = String(v); }
  getAttr(k) { return this.attrs[k]; }
  addEventListener(ev, cb) { (this.listeners[ev] ||= []).push(cb); }
  click() { for (const cb of this.listeners.click || []) cb({}); }
  get textContent() { return [this.text, ...this.children.map((c) => c.textContent)].filter(Boolean).join(" "); }
  /** Every descendant with this class. */
  findAll(cls) {
    const out = [];
    const walk = (e) => { for (const c of e.children) { if (c.classes.has(cls)) out.push(c); walk(c); } };
    walk(this);
    return out;
  }
}

class Notice {
  constructor(message) { Notice.shown.push(String(message)); }
  hide() {}
}
Notice.shown = [];

function requestUrl(p) {
  const params = typeof p === "string" ? { url: p } : p;
  return new Promise((resolve, reject) => {
    const u = new URL(params.url);
    const headers = { ...(params.headers || {}) };
    if (params.contentType) headers["Content-Type"] = params.contentType;
    if (params.body !== undefined) headers["Content-Length"] = Buffer.byteLength(params.body);
    const req = http.request(
      { hostname: u.hostname, port: u.port, path: u.pathname + u.search, method: params.method || "GET", headers },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (data += d));
        res.on("end", () => {
          const out = { status: res.statusCode, headers: res.headers, text: data, get json() { return JSON.parse(data); } };
          if (params.throw !== false && res.statusCode >= 400) reject(new Error(`Request failed, status ${res.statusCode}`));
          else resolve(out);
        });
      },
    );
    req.on("error", (err) => reject(new Error(`net::${err.code || err.message}`)));
    if (params.body !== undefined) req.write(params.body);
    req.end();
  });
}

class Component {
  constructor() { this._cleanups = []; }
  register(cb) { this._cleanups.push(cb); }
  registerEvent(ref) { this._cleanups.push(() => ref.off()); }
  registerInterval(id) { this._cleanups.push(() => clearInterval(id)); return id; }
  load() {}
  unload() {
    for (const f of this._cleanups.splice(0)) f();
    if (this.onunload) this.onunload();
  }
}

class Plugin extends Component {
  constructor(app, manifest) {
    super();
    this.app = app;
    this.manifest = manifest;
    this.commands = {};
    this.statusBarItems = [];
    this.settingTabs = [];
    this._data = null;
  }
  async loadData() { return this._data; }
  async saveData(d) { this._data = JSON.parse(JSON.stringify(d)); }
  addCommand(c) { this.commands[c.id] = c; return c; }
  registerView(type, factory) { this.app.workspace._factories[type] = factory; }
  addStatusBarItem() { const e = new El("div"); this.statusBarItems.push(e); return e; }
  addSettingTab(t) { this.settingTabs.push(t); }
  addRibbonIcon() { return new El("div"); }
}

class WorkspaceLeaf {
  constructor(ws) { this.ws = ws; this.view = null; }
  async setViewState(state) {
    this.view = this.ws._factories[state.type](this);
    await this.view.onOpen();
  }
}

class Workspace {
  constructor(app) {
    this.app = app;
    this._handlers = {};
    this._factories = {};
    this._leaves = [];
    this.activeFile = null;
    this.activeView = null;
    this.opened = [];
  }
  on(name, cb) {
    const list = (this._handlers[name] ||= []);
    list.push(cb);
    return { off: () => list.splice(list.indexOf(cb), 1) };
  }
  trigger(name, ...args) { for (const cb of this._handlers[name] || []) cb(...args); }
  onLayoutReady(cb) { cb(); }
  getActiveFile() { return this.activeFile; }
  getActiveViewOfType(cls) { return this.activeView instanceof cls ? this.activeView : null; }
  getLeavesOfType(type) { return this._leaves.filter((l) => l.view && l.view.getViewType() === type); }
  getRightLeaf() { const leaf = new WorkspaceLeaf(this); this._leaves.push(leaf); return leaf; }
  revealLeaf() {}
  async openLinkText(link, source) { this.opened.push(link); }
}

class ItemView extends Component {
  constructor(leaf) {
    super();
    this.leaf = leaf;
    this.app = leaf.ws.app;
    this.containerEl = new El("div");
    this.contentEl = this.containerEl.createDiv();
    this.actions = [];
  }
  addAction(icon, title, cb) { const e = new El("button"); e.addEventListener("click", cb); this.actions.push(e); return e; }
}

class TFile {
  constructor(p) {
    this.path = p;
    this.name = p.split("/").pop();
    this.extension = this.name.includes(".") ? this.name.split(".").pop() : "";
    this.basename = this.name.replace(/\.[^.]*$/, "");
  }
}

class MarkdownView {
  constructor(file, editor) { this.file = file; this.editor = editor; }
}

class Modal {
  constructor(app) { this.app = app; this.contentEl = new El("div"); this.titleEl = new El("div"); }
  open() { Modal.opened.push(this); if (this.onOpen) this.onOpen(); }
  close() { if (this.onClose) this.onClose(); }
}
Modal.opened = [];

class SuggestModal extends Modal {
  setPlaceholder(p) { this.placeholder = p; }
  setInstructions(i) { this.instructions = i; }
}

class PluginSettingTab {
  constructor(app, plugin) { this.app = app; this.plugin = plugin; this.containerEl = new El("div"); }
}

class Setting {
  constructor(el) { this.el = el.createDiv({ cls: "setting-item" }); }
  setName(n) { this.el.createDiv({ text: n }); return this; }
  setDesc(d) { this.el.createDiv({ text: d }); return this; }
  _control() {
    const c = { inputEl: new El("input"), value: null };
    for (const m of ["setPlaceholder", "setLimits", "setDynamicTooltip"]) c[m] = () => c;
    c.setValue = (v) => { c.value = v; return c; };
    c.onChange = (cb) => { c.changed = cb; return c; };
    return c;
  }
  addText(cb) { cb(this._control()); return this; }
  addToggle(cb) { cb(this._control()); return this; }
  addSlider(cb) { cb(this._control()); return this; }
}

function debounce(fn, ms) {
  let t = null;
  const d = (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); };
  d.cancel = () => clearTimeout(t);
  return d;
}

function getAllTags(cache) {
  const out = [];
  const fm = cache.frontmatter && cache.frontmatter.tags;
  for (const t of Array.isArray(fm) ? fm : fm ? [fm] : []) out.push(`#${t}`);
  for (const t of cache.tags || []) out.push(t.tag);
  return out;
}

/** An app over a folder: files by vault-relative path, their metadata given by the test. */
function makeApp(base) {
  const app = { caches: {} };
  app.workspace = new Workspace(app);
  app.vault = {
    adapter: { getBasePath: () => base },
    cachedRead: async (file) => fs.promises.readFile(path.join(base, file.path), "utf8"),
    getName: () => path.basename(base),
  };
  app.metadataCache = { getFileCache: (file) => app.caches[file.path] || null };
  return app;
}

module.exports = {
  App: class {}, Component, Plugin, ItemView, WorkspaceLeaf, TFile, MarkdownView, Modal, SuggestModal,
  PluginSettingTab, Setting, Notice, requestUrl, debounce, getAllTags, Platform: { isDesktopApp: true },
  El, makeApp,
};
