export function buildDist(options?: { quiet?: boolean }): Promise<unknown>;
export function moveInto(from: string, to: string, last: string): void;
