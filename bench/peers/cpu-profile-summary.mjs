// Reads a V8 `.cpuprofile` (from `node --cpu-prof`) and names where the time went: top functions by
// self time and the same grouped by file or package, so an engine tuner sees the big costs at once.
// Usage on its own: node bench/peers/cpu-profile-summary.mjs <file.cpuprofile> [top]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where a script URL belongs: a package under node_modules, a file of mtool, or node itself. */
function owner(url) {
  if (!url) return '(native / V8)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return url;
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + 1) : url.replace(/^file:\/\//, '');
}

/**
 * @param {string} file path of a .cpuprofile
 * @returns {{ totalMs: number, idleMs: number, functions: {name:string, where:string, ms:number}[], owners: {owner:string, ms:number}[] }}
 */
export function summarizeProfile(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const functions = new Map();
  const owners = new Map();
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id);
    const name = callFrame.functionName || '(anonymous)';
    if (name === '(idle)') {
      idleUs += us;
      continue;
    }
    const where = `${owner(callFrame.url)}:${callFrame.lineNumber + 1}`;
    const key = `${name} ${where}`;
    const entry = functions.get(key) ?? { name, where, ms: 0 };
    entry.ms += us / 1000;
    functions.set(key, entry);
    const o = name.startsWith('(') && !callFrame.url ? name : owner(callFrame.url);
    owners.set(o, (owners.get(o) ?? 0) + us / 1000);
  }
  // Inclusive time of mtool's own functions (self + callees), counted once per call path even
  // when a function recurses: that shows which phase (config, directory read, connect, apply) costs.
  const inclusive = new Map();
  const walk = (id, onPath) => {
    const node = byId.get(id);
    const { callFrame } = node;
    const key = callFrame.url.includes('/dist/') && !callFrame.url.includes('node_modules/') ? `${callFrame.functionName || '(anonymous)'} ${owner(callFrame.url)}:${callFrame.lineNumber + 1}` : undefined;
    let total = selfUs.get(id) ?? 0;
    const fresh = key !== undefined && !onPath.has(key);
    if (fresh) onPath.add(key);
    for (const child of node.children ?? []) total += walk(child, onPath);
    if (fresh) {
      onPath.delete(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + total);
    }
    return total;
  };
  walk(profile.nodes[0].id, new Set());
  const totalMs = (profile.endTime - profile.startTime) / 1000;
  return {
    inclusive: [...inclusive.entries()].map(([key, us]) => ({ key, ms: us / 1000 })).sort((a, b) => b.ms - a.ms),
    totalMs,
    idleMs: idleUs / 1000,
    functions: [...functions.values()].sort((a, b) => b.ms - a.ms),
    owners: [...owners.entries()].map(([o, ms]) => ({ owner: o, ms })).sort((a, b) => b.ms - a.ms),
  };
}

/** Lines describing the top costs of a profile. */
export function formatProfile(file, top = 12) {
  const s = summarizeProfile(file);
  const pct = (ms) => `${((100 * ms) / s.totalMs).toFixed(1)}%`.padStart(6);
  const lines = [`profile ${file}: ${s.totalMs.toFixed(0)} ms, of which idle (waiting on I/O or the database) ${s.idleMs.toFixed(0)} ms (${pct(s.idleMs).trim()})`];
  lines.push('  by file/package (self time):');
  for (const o of s.owners.slice(0, top)) lines.push(`    ${o.ms.toFixed(0).padStart(7)} ms ${pct(o.ms)}  ${o.owner}`);
  lines.push('  by function (self time):');
  for (const f of s.functions.slice(0, top)) lines.push(`    ${f.ms.toFixed(0).padStart(7)} ms ${pct(f.ms)}  ${f.name}  ${f.where}`);
  lines.push("  mtool's functions by inclusive time (self + callees, CPU only, not waits):");
  for (const f of s.inclusive.slice(0, top)) lines.push(`    ${f.ms.toFixed(0).padStart(7)} ms ${pct(f.ms)}  ${f.key}`);
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node bench/peers/cpu-profile-summary.mjs <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  // Piped into `head`: stop quietly once the reader is gone.
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  for (const line of formatProfile(file, Number(top ?? 15))) process.stdout.write(`${line}\n`);
}
