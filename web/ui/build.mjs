// Builds ../dist, which the Go package embeds: the page, one script, one
// style sheet and the icon. The output depends only on the sources and the
// locked packages (no hashes, dates or absolute paths), so CI can rebuild it
// and compare with what is committed.
import { build } from 'esbuild';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'dist');

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });

await build({
  absWorkingDir: here,
  entryPoints: { app: 'src/main.js', style: 'src/style.css' },
  outdir: join(out, 'assets'),
  entryNames: '[name]',
  bundle: true,
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  minify: !process.env.AVAILMON_DEV, // AVAILMON_DEV=1 npm run build: readable names for profiling; never commit that build
  sourcemap: false,
  legalComments: 'eof',
  charset: 'utf8',
  logLevel: 'warning',
});
cpSync(join(here, 'src', 'index.html'), join(out, 'index.html'));
cpSync(join(here, 'src', 'icon.svg'), join(out, 'assets', 'icon.svg'));
