// The Obsidian plugin (the committed, built main.js) against a stub of the `obsidian` module and
// a REAL mnemo daemon on 127.0.0.1, started here on a throwaway home and vault.
//
//   MNEMO_PYTHON=.venv/bin/python node --test tests/node/
//
// scripts/test runs this when node is on the machine.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const Module = require("node:module");

const ROOT = path.resolve(__dirname, "..", "..");
const STUB = path.join(__dirname, "obsidian-stub.cjs");
const PLUGIN = path.join(ROOT, "mnemo", "obsidian", "plugin", "main.js");
const PYTHON = process.env.MNEMO_PYTHON || path.join(ROOT, ".venv", "bin", "python");

// `require("obsidian")` in main.js resolves to the stub.
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === "obsidian" ? STUB : resolve.call(this, request, ...rest);
};
const obsidian = require(STUB);
const { Notice, TFile, MarkdownView, makeApp } = obsidian;

const work = fs.mkdtempSync(path.join(os.tmpdir(), "mnemo-plugin-"));
const home = path.join(work, "home");
const vault = path.join(work, "vault");
const env = { ...process.env };
for (const k of Object.keys(env)) if (k.startsWith("MNEMO_")) delete env[k];
Object.assign(env, {
  MNEMO_HOME: home,
  MNEMO_VAULT: vault,
  // The hash embedder keeps the daemon's start at about a second; the model's quality is not
  // what this test is about. Nothing runs beside the requests.
  MNEMO_EMBEDDING_MODEL: "hash-64",
  MNEMO_DAEMON_PRELOAD_NLP: "0",
  MNEMO_DAEMON_WATCH: "0",
  HF_HUB_OFFLINE: "1",
  PYTHONPATH: [ROOT, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter),
});
for (const job of ["activity", "promote", "gc", "enrich", "dashboard", "dream"]) env[`MNEMO_DAEMON_${job.toUpperCase()}_INTERVAL`] = "0";

function mnemo(...args) {
  const r = spawnSync(PYTHON, ["-m", "mnemo", ...args], { env, encoding: "utf8", timeout: 120000 });
  assert.equal(r.status, 0, `mnemo ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

/** Call the daemon directly (what the test checks the plugin against). */
async function api(op, body) {
  const ep = JSON.parse(fs.readFileSync(path.join(home, "daemon.json"), "utf8"));
  const res = await obsidian.requestUrl({
    url: `http://127.0.0.1:${ep.port}/v1/${op}`, method: "POST", throw: false, contentType: "application/json",
    headers: { Authorization: `Bearer ${ep.token}` }, body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, res.text);
  return res.json.result;
}

const NOTES = {
  "Databases.md": "---\ntags: [db, architecture]\n---\n# Databases\n\nWhich database the orders service uses and why.\n\n## PostgreSQL\nWe run PostgreSQL for orders.\n",
  "Postgres tuning.md": "# Postgres tuning\n\nPostgreSQL settings for the orders database: shared_buffers, work_mem, autovacuum.\n",
  "Gardening.md": "# Gardening\n\nTomatoes need deep watering every two days on the balcony.\n",
};

let plugin;
let app;
const file = new TFile("Databases.md");

test.before(async () => {
  fs.mkdirSync(vault, { recursive: true });
  for (const [name, text] of Object.entries(NOTES)) fs.writeFileSync(path.join(vault, name), text);
  mnemo("init");
  mnemo("daemon", "start", "--json");
  await api("index_vault", {});
  await api("save", { content: "We decided on PostgreSQL for the orders database", tags: ["db"] });

  process.env.MNEMO_HOME = home; // as in the shell Obsidian was started from
  app = makeApp(vault);
  app.caches["Databases.md"] = { frontmatter: { tags: ["db", "architecture"] }, tags: [{ tag: "#orders" }] };
  const Plugin = require(PLUGIN).default;
  plugin = new Plugin(app, JSON.parse(fs.readFileSync(path.join(path.dirname(PLUGIN), "manifest.json"), "utf8")));
  await plugin.onload();
});

test.after(() => {
  if (plugin) plugin.unload();
  spawnSync(PYTHON, ["-m", "mnemo", "daemon", "stop"], { env, encoding: "utf8", timeout: 60000 });
  fs.rmSync(work, { recursive: true, force: true });
});

test("opening a note fills the pane with related notes and memories from the vault, never the note itself", async () => {
  const view = await plugin.activateView();
  assert.ok(view, "the pane opened");
  app.workspace.activeFile = file;
  app.workspace.trigger("file-open", file);
  await plugin.pending;
  assert.equal(view.error, null);
  const paths = view.hits.map((h) => h.path);
  assert.ok(paths.includes("Postgres tuning.md"), `a related note is listed: ${JSON.stringify(paths)}`);
  assert.ok(!paths.includes("Databases.md"), "the note itself is never related to itself");
  assert.ok(view.hits.some((h) => h.tier === "stm" && /PostgreSQL/.test(h.content)), "the memory is listed");
  const rows = view.contentEl.findAll("mnemo-hit");
  assert.equal(rows.length, view.hits.length);
  const first = rows.find((r) => r.getAttr("data-path") === "Postgres tuning.md");
  assert.match(first.textContent, /ltm/);
  assert.match(first.textContent, /\d\.\d\d/, "each hit shows its score");
  first.findAll("mnemo-hit-title")[0].click();
  assert.deepEqual(app.workspace.opened, ["Postgres tuning.md"], "a click opens the note");
});

test("the selection, when there is one, is what the pane recalls on", async () => {
  const editor = { getSelection: () => "tomatoes watering balcony", getValue: () => NOTES["Databases.md"], replaceSelection() {} };
  app.workspace.activeView = new MarkdownView(file, editor);
  const view = plugin.view();
  view.actions[0].click(); // the pane's refresh button
  await plugin.pending;
  assert.equal(view.hits[0].path, "Gardening.md");
  app.workspace.activeView = null;
});

test('"Save selection as memory" creates a memory the daemon returns, tagged from the note', async () => {
  const text = "The orders service keeps its invoices for seven years";
  const editor = { getSelection: () => text, getValue: () => "", replaceSelection() {} };
  const r = await plugin.commands["save-selection"].editorCallback(editor, new MarkdownView(file, editor));
  assert.ok(r && r.created, "a memory was created");
  const got = await api("get", { memory_id: r.memory.id });
  assert.equal(got.content, text);
  assert.deepEqual([...got.tags].sort(), ["architecture", "db", "orders"]);
  assert.equal(got.meta.note, "Databases.md");
  assert.match(Notice.shown.at(-1), /saved as memory/);
});

test('"Recall…" shows live results and inserts a hit as a link or a quote', async () => {
  let inserted = "";
  const editor = { getSelection: () => "", getValue: () => "", replaceSelection: (t) => (inserted = t) };
  app.workspace.activeView = new MarkdownView(file, editor);
  plugin.commands.recall.callback();
  const modal = obsidian.Modal.opened.at(-1);
  const hits = await modal.getSuggestions("PostgreSQL tuning");
  const note = hits.find((h) => h.path === "Postgres tuning.md");
  assert.ok(note, JSON.stringify(hits.map((h) => h.path)));
  modal.onChooseSuggestion(note, { shiftKey: false });
  assert.equal(inserted, "[[Postgres tuning]]");
  modal.onChooseSuggestion(note, { shiftKey: true });
  assert.match(inserted, /^> PostgreSQL settings/);
  app.workspace.activeView = null;
});

test("the status bar shows the daemon and its memory count", async () => {
  const s = await plugin.refreshStatus();
  assert.ok(s && s.pid);
  assert.match(plugin.statusBarItems[0].text, /^mnemo [●○] \d+ memories$/);
});

test("a wrong token gives a notice with the fix", async () => {
  await plugin.setToken("not-the-token");
  const before = Notice.shown.length;
  assert.equal(await plugin.refreshStatus(), null);
  const notice = Notice.shown.slice(before).join("\n");
  assert.match(notice, /refused the token/);
  assert.match(notice, /Fix: clear the token/);
  assert.equal(plugin.statusBarItems[0].text, "mnemo: token refused");
  assert.ok(!JSON.stringify(plugin._data).includes("not-the-token"), "the token is not written into the vault's settings");
  await plugin.setToken("");
  assert.ok(await plugin.refreshStatus());
});

test("a stopped daemon gives a notice with the fix (mnemo daemon start)", async () => {
  mnemo("daemon", "stop");
  const before = Notice.shown.length;
  app.workspace.activeFile = file;
  await plugin.refreshPane(file);
  const notice = Notice.shown.slice(before).join("\n");
  assert.match(notice, /not running|does not answer/);
  assert.match(notice, /mnemo daemon start/);
  assert.equal(plugin.statusBarItems[0].text, "mnemo: off");
  assert.match(plugin.view().error, /not running|does not answer/, "the pane says so too");
});
