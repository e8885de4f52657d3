import { build, type Metafile } from 'esbuild';

/**
 * The whole module graph reachable from a source entry (lazily imported modules included), as
 * esbuild's metafile: tests read from it how a module is reached (static import or dynamic
 * import()) to prove what loads at start-up. `external` packages stay outside the graph.
 */
export async function moduleGraph(entry: string, external: { packages: string[] } | 'all-packages'): Promise<Metafile> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    outdir: '/tmp/mtool-module-graph',
    metafile: true,
    ...(external === 'all-packages' ? { packages: 'external' as const } : { external: external.packages }),
    logLevel: 'silent',
  });
  return result.metafile;
}
