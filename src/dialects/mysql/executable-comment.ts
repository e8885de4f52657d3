/**
 * The statement an executable comment holds (`/*!40101 SET NAMES utf8mb4 *\/`, `/*M!100100 ... *\/`,
 * as mysqldump and mariadb-dump write them), which the server runs; any other statement as it is.
 */
export function executed(text: string): string {
  if (!text.startsWith('/*')) return text;
  const inner = /^\/\*M?!\d*\s*([\s\S]*?)\s*\*\/\s*$/.exec(text);
  return inner ? inner[1]! : text;
}
