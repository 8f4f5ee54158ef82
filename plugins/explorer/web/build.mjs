// Builds the front end into dist/: one JavaScript and one CSS bundle,
// named by their content's hash, and index.html, which the module serves
// for every route (docs/explorer.md, "Building").
import { build } from 'esbuild';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

const dist = 'dist';
// Empty dist but keep its .gitkeep: the Go package embeds the folder.
await mkdir(dist, { recursive: true });
for (const f of await readdir(dist)) if (f !== '.gitkeep') await rm(path.join(dist, f), { recursive: true });

const result = await build({
  entryPoints: ['src/main.jsx'],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: path.join(dist, 'assets'),
  entryNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});
const outputs = Object.keys(result.metafile.outputs).map((f) => path.relative(dist, f));
const js = outputs.find((f) => f.endsWith('.js'));
const css = outputs.find((f) => f.endsWith('.css'));
// The module puts a <base> right after <head>, so the relative URLs
// resolve below its prefix from every route.
await writeFile(path.join(dist, 'index.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>chainhost explorer</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${css}">
<script type="module" src="${js}"></script>
</head><body><div id="app"></div></body></html>
`);
for (const f of outputs) console.log(`dist/${f}`);
