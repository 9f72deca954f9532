// The side pane: memories and notes related to the note in front of the person.
import { ItemView, TFile, WorkspaceLeaf } from "obsidian";
import type { Hit } from "./client";
import { age, kind, snippet, title } from "./format";
import type MnemoPlugin from "./main";
import { MemoryModal } from "./modals";

export const VIEW_TYPE = "mnemo-related";

export interface Source {
  file: TFile;
  /** The note's text as the editor holds it (unsaved edits included). */
  content?: string;
  /** The person's selection: recall on it instead of the note. */
  selection?: string;
}

export class RelatedView extends ItemView {
  hits: Hit[] = [];
  source: Source | null = null;
  error: string | null = null;
  private seq = 0;

  constructor(leaf: WorkspaceLeaf, private plugin: MnemoPlugin) {
    super(leaf);
  }

  getViewType(): string {
    return VIEW_TYPE;
  }

  getDisplayText(): string {
    return "mnemo";
  }

  getIcon(): string {
    return "brain-circuit";
  }

  async onOpen(): Promise<void> {
    // The pane follows the note on open and edit; a selection is picked up on refresh.
    this.addAction("refresh-cw", "Refresh (on the selection, when there is one)", () => void this.plugin.refreshPane());
    this.render();
  }

  async onClose(): Promise<void> {
    this.contentEl.empty();
  }

  /** Ask the daemon what is related to this note (or selection) and show it. A newer request
   * wins over one still in flight. */
  async show(source: Source | null): Promise<void> {
    const seq = ++this.seq;
    this.source = source;
    if (!source) {
      this.hits = [];
      this.error = null;
      this.render();
      return;
    }
    const args: Record<string, unknown> = { path: source.file.path, k: this.plugin.settings.k };
    if (source.selection) args.text = source.selection;
    else if (source.content !== undefined) args.content = source.content;
    try {
      const result = await this.plugin.call<{ hits: Hit[] }>("related", args, true);
      if (seq !== this.seq) return;
      this.hits = result.hits;
      this.error = null;
    } catch (err) {
      if (seq !== this.seq) return;
      this.hits = [];
      this.error = (err as Error).message;
    }
    this.render();
  }

  render(): void {
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
  open(hit: Hit): void {
    if (hit.path) {
      void this.app.workspace.openLinkText(hit.path, this.source?.file.path ?? "", false);
      return;
    }
    new MemoryModal(this.app, this.plugin, hit).open();
  }
}
