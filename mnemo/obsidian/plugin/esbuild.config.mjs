// Bundles src/ into the committed main.js (CommonJS, as Obsidian loads plugins). `obsidian`,
// `electron` and Node's built-ins are provided by the app at run time.
import { builtinModules } from "node:module";
import esbuild from "esbuild";

await esbuild.build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "es2020",
  outfile: "main.js",
  external: ["obsidian", "electron", ...builtinModules, ...builtinModules.map((m) => `node:${m}`)],
  sourcemap: false,
  legalComments: "none",
  banner: { js: "/* mnemo for Obsidian: built from src/ by esbuild (npm run build); edit the TypeScript, not this file. */" },
  logLevel: "info",
});
