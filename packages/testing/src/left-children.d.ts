/** A process's start time (clock ticks since boot, /proc/<pid>/stat's 22nd field), or null when it is gone. */
export function processStartTime(pid: number | string): string | null;
/** SIGKILLs every listed child still running (the same process, not one that got its pid since); returns them. */
export function killLeftChildren(why: string): number[];
