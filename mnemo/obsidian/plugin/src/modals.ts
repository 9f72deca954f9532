// The memory modal (pin, forget, promote) and the Recall… modal (live results, insert as a
// link or a quote).
import { App, Editor, Modal, Notice, SuggestModal } from "obsidian";
import type { Hit } from "./client";
import { age, kind, link, quote, snippet, title } from "./format";
import type MnemoPlugin from "./main";

export class MemoryModal extends Modal {
  constructor(app: App, private plugin: MnemoPlugin, private hit: Hit) {
    super(app);
  }

  onOpen(): void {
    const { contentEl, hit } = this;
    this.titleEl.setText(`mnemo ${kind(hit)} ${hit.id.slice(0, 8)}`);
    contentEl.empty();
    contentEl.createDiv({ cls: "mnemo-memory-text", text: hit.content });
    const meta = [hit.tier, kind(hit), age(hit.created_at), hit.status || "", (hit.tags || []).map((t) => `#${t}`).join(" ")];
    contentEl.createDiv({ cls: "mnemo-hit-meta", text: meta.filter(Boolean).join(" · ") });
    const bar = contentEl.createDiv({ cls: "mnemo-actions" });
    this.action(bar, "Pin", "pin", "pinned");
    this.action(bar, "Forget", "forget", "forgotten (mnemo restore brings it back)");
    this.action(bar, "Promote", "promote", "promoted into the vault");
  }

  private action(bar: HTMLElement, label: string, op: string, done: string): void {
    const b = bar.createEl("button", { text: label });
    b.addEventListener("click", async () => {
      try {
        await this.plugin.call(op, { memory_id: this.hit.id });
        new Notice(`mnemo: memory ${this.hit.id.slice(0, 8)} ${done}`);
        this.close();
        void this.plugin.refreshPane();
      } catch (err) {
        this.plugin.report(err);
      }
    });
  }

  onClose(): void {
    this.contentEl.empty();
  }
}

export class RecallModal extends SuggestModal<Hit> {
  constructor(app: App, private plugin: MnemoPlugin, private editor: Editor | null) {
    super(app);
    this.setPlaceholder("Recall from mnemo…");
    this.setInstructions([
      { command: "↵", purpose: "insert as a link (a quote for a memory without a note)" },
      { command: "shift ↵", purpose: "insert as a quote" },
    ]);
  }

  async getSuggestions(query: string): Promise<Hit[]> {
    if (!query.trim()) return [];
    try {
      // Typing is not using: nothing is reinforced until a hit is chosen.
      return await this.plugin.call<Hit[]>("recall", { query, k: this.plugin.settings.k, touch: false });
    } catch (err) {
      this.plugin.report(err);
      return [];
    }
  }

  renderSuggestion(hit: Hit, el: HTMLElement): void {
    el.createDiv({ cls: "mnemo-hit-title", text: title(hit) });
    el.createDiv({ cls: "mnemo-hit-meta", text: [hit.tier, kind(hit), age(hit.created_at), hit.score.toFixed(2)].filter(Boolean).join(" · ") });
    el.createEl("small", { cls: "mnemo-hit-text", text: snippet(hit, 120) });
  }

  onChooseSuggestion(hit: Hit, evt: MouseEvent | KeyboardEvent): void {
    const text = evt.shiftKey ? quote(hit) : link(hit) ?? quote(hit);
    if (this.editor) this.editor.replaceSelection(text);
    else void navigator.clipboard?.writeText(text);
    const memoryId = hit.status ? hit.id : hit.meta?.mnemo_id;
    if (memoryId && !String(memoryId).includes(":")) void this.plugin.call("touch", { memory_id: memoryId }).catch(() => undefined);
  }
}
