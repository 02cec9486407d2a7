// @ts-check
/**
 * The workspace's builds, quietly: each package's own `build` script, two at a time, its output kept rather than
 * printed (about 350 lines of Vite's for the site), and one line per package when it is done, with its time and the
 * size of what it wrote. A build that fails prints its whole output; `--verbose` prints every build's as it comes.
 * Plain JavaScript: `pnpm build` and `pnpm start` run it with Node alone.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Bytes under `path` written since `since` (a build may keep older files beside its own, as the commands' do).
 * @returns {number}
 */
function sizeOf(/** @type {string} */ path, /** @type {number} */ since) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs >= since ? stat.size : 0;
  return readdirSync(path).reduce((total, name) => total + sizeOf(join(path, name), since), 0);
}

const seconds = (/** @type {number} */ ms) => `${(ms / 1000).toFixed(1)} s`;
const kib = (/** @type {number} */ bytes) => `${Math.round(bytes / 1024).toLocaleString('en-US')} KiB`;

/**
 * Starts the script `name` of the package in `folder` as `pnpm run` would, without pnpm: through `sh`, with the
 * package's and the workspace's `node_modules/.bin` on PATH, its output piped; `pnpm build` and `pnpm dev` both.
 * With `exec` the script must be one command, which then replaces the shell: stopping the child stops it (a server).
 * @param {string} root
 * @param {string} folder
 * @param {string} name
 */
export function startPackageScript(root, folder, name, { exec = false } = {}) {
  const cwd = join(root, folder);
  /** @type {string} */
  const script = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')).scripts[name];
  const PATH = [join(cwd, 'node_modules', '.bin'), join(root, 'node_modules', '.bin'), process.env.PATH].join(
    delimiter,
  );
  const child = spawn('sh', ['-c', exec ? `exec ${script}` : script], {
    cwd,
    env: { ...process.env, PATH },
    stdio: 'pipe',
  });
  return { child, script };
}

/** The workspace's packages (top-level folders and packages/*) that have a `build` script, by folder. */
export function buildablePackages(/** @type {string} */ root) {
  const folders = [
    ...readdirSync(root).filter((name) => !name.startsWith('.') && name !== 'node_modules' && name !== 'packages'),
    ...(existsSync(join(root, 'packages'))
      ? readdirSync(join(root, 'packages')).map((name) => `packages/${name}`)
      : []),
  ];
  return folders.filter((folder) => {
    const manifest = join(root, folder, 'package.json');
    return existsSync(manifest) && Boolean(JSON.parse(readFileSync(manifest, 'utf8')).scripts?.build);
  });
}

/**
 * Runs the `build` script of each of `folders` (relative to `root`), `concurrency` at a time; resolves with whether
 * every one passed. After a failure nothing new starts; the builds under way finish.
 * @param {string[]} folders
 * @param {{ root: string, verbose?: boolean, concurrency?: number, out?: NodeJS.WriteStream }} options
 */
export async function buildQuietly(folders, { root, verbose = false, concurrency = 2, out = process.stdout }) {
  const started = Date.now();
  const queue = [...folders];
  /** @type {Set<string>} */
  const running = new Set();
  let done = 0;
  let failed = false;
  const width = Math.max(...folders.map((folder) => folder.length));
  // On a terminal, one line that says what is building, rewritten every second; in a log, nothing between the results.
  const progress = () => {
    if (!out.isTTY || verbose) return;
    const names = [...running].join(', ');
    out.write(`\r\x1b[K  building ${names} (${done} of ${folders.length} done, ${seconds(Date.now() - started)})`);
  };
  const clear = () => out.isTTY && !verbose && out.write('\r\x1b[K');
  const ticker = setInterval(progress, 1000);
  out.write(
    `Building ${folders.length} package${folders.length === 1 ? '' : 's'}, ${concurrency} at a time` +
      `${verbose ? '' : ' (--verbose for each build\u2019s own output)'}:\n`,
  );

  async function buildOne(/** @type {string} */ folder) {
    const cwd = join(root, folder);
    const begun = Date.now();
    /** @type {Buffer[]} */
    const output = [];
    const { child, script } = startPackageScript(root, folder, 'build');
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (/** @type {Buffer} */ chunk) => (verbose ? out.write(chunk) : output.push(chunk)));
    }
    const code = await new Promise((resolve) => {
      child.on('error', () => resolve(127));
      child.on('close', (status) => resolve(status ?? 1));
    });
    clear();
    if (code === 0) {
      out.write(
        `  ${folder.padEnd(width)}  ${seconds(Date.now() - begun).padStart(7)}  ${kib(sizeOf(join(cwd, 'dist'), begun - 1000))}\n`,
      );
    } else {
      failed = true;
      out.write(`  ${folder.padEnd(width)}  failed after ${seconds(Date.now() - begun)} (${script}):\n`);
      if (!verbose) out.write(Buffer.concat(output));
    }
  }

  async function worker() {
    for (let folder = queue.shift(); folder !== undefined && !failed; folder = queue.shift()) {
      running.add(folder);
      progress();
      await buildOne(folder);
      running.delete(folder);
      done += 1;
      progress();
    }
  }

  await Promise.all(Array.from({ length: Math.min(concurrency, folders.length) }, worker));
  clearInterval(ticker);
  clear();
  out.write(failed ? `A build failed; see its output above.\n` : `Built in ${seconds(Date.now() - started)}.\n`);
  return !failed;
}
