import { closeSync, constants, openSync, readSync } from 'node:fs';

/**
 * A reader on the named pipe `fifo`, held open by the test itself (no `cat` to spawn, no timer to
 * stop one left waiting): svc finds a reader at once, and `read()` takes, after svc has ended,
 * what it wrote (the pipe keeps up to 64 KiB) and closes the reader. Nothing written reads as ''.
 * A spawned reader stopped "after 1 s" could be stopped, on a loaded machine, before it had read.
 */
export function fifoReader(fifo: string): { read(): string } {
  const fd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  return {
    read() {
      const chunks: Buffer[] = [];
      try {
        for (;;) {
          const chunk = Buffer.alloc(65536);
          const got = readSync(fd, chunk);
          if (got === 0) break; // every writer has closed it, and it is empty
          chunks.push(chunk.subarray(0, got));
        }
      } catch (error) {
        // No writer has it open and nothing is left (or none ever wrote): what came is all.
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      } finally {
        closeSync(fd);
      }
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}
