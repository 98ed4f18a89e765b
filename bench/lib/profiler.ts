/** A CPU profile of a bench's server child over the window the bench measures, not its start-up. */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';

export interface WindowProfiler {
  start(): Promise<null>;
  /** Writes the profile (a .cpuprofile, `npx tsx bench/api/cpu-profile.ts FILE` summarises it) and answers where. */
  stop(file: string): Promise<{ file: string }>;
}

export function windowProfiler(): WindowProfiler {
  let session: Session | undefined;
  return {
    async start() {
      if (session) throw new Error('the profiler is already running');
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      // 200 µs: fine enough for turns that take a millisecond or two.
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
      return null;
    },
    async stop(file) {
      if (!session) throw new Error('the profiler was not started');
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      session = undefined;
      fs.writeFileSync(file, JSON.stringify(profile));
      return { file };
    },
  };
}
