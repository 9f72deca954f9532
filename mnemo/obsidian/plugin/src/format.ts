// How a hit is shown: what it is (tier and type), how old, how well it matched.
import type { Hit } from "./client";

export function age(createdAt: number | null | undefined, now: number = Date.now() / 1000): string {
  if (!createdAt) return "";
  const s = Math.max(0, now - createdAt);
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))}m`;
  if (s < 86400) return `${Math.round(s / 3600)}h`;
  if (s < 86400 * 60) return `${Math.round(s / 86400)}d`;
  if (s < 86400 * 730) return `${Math.round(s / (86400 * 30))}mo`;
  return `${Math.round(s / (86400 * 365))}y`;
}

/** "memory" for a memory not in the vault, "note" for a person's note, else the memory type. */
export function kind(hit: Hit): string {
  if (hit.type) return hit.type;
  return hit.tier === "ltm" ? "note" : "memory";
}

function noteName(path: string): string {
  return (path.split("/").pop() || path).replace(/\.md$/i, "");
}

/** The chunk's heading, unless it only repeats the note's name (a note's H1 usually does). */
function section(hit: Hit): string | null {
  if (!hit.path || !hit.heading) return null;
  return hit.heading.trim().toLowerCase() === noteName(hit.path).toLowerCase() ? null : hit.heading;
}

export function title(hit: Hit): string {
  if (hit.path) {
    const t = noteName(hit.path);
    const h = section(hit);
    return h ? `${t} › ${h}` : t;
  }
  const first = hit.content.split("\n").find((l) => l.trim()) || "";
  return first.length > 80 ? first.slice(0, 77) + "…" : first;
}

export function snippet(hit: Hit, n = 160): string {
  const text = hit.content.replace(/\s+/g, " ").trim();
  return text.length > n ? text.slice(0, n - 1) + "…" : text;
}

/** A Markdown quote of the hit, with where it came from. */
export function quote(hit: Hit): string {
  const lines = hit.content.trim().split("\n").map((l) => `> ${l}`);
  const from = hit.path ? `[[${hit.path.replace(/\.md$/i, "")}]]` : `mnemo memory ${hit.id.slice(0, 8)}`;
  return `${lines.join("\n")}\n> — ${from}\n`;
}

/** A wikilink to the hit's note (null for a memory that has no note). */
export function link(hit: Hit): string | null {
  if (!hit.path) return null;
  const target = hit.path.replace(/\.md$/i, "");
  const h = section(hit);
  return h ? `[[${target}#${h}]]` : `[[${target}]]`;
}
