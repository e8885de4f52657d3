/**
 * Whether a process with this pid exists on this host: true also when it runs as another user
 * (the signal check is refused with EPERM); false for a pid that cannot be one.
 */
export function processExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
