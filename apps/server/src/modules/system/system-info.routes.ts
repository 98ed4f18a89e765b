import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import si from 'systeminformation';
import { z } from 'zod';

export const systemInfoSchema = z.object({
  hardware_id: z.string(),
  ip_address: z.string(),
  server_time: z.string(),
  motherboard: z.string(),
  processor: z.string(),
  ram: z.string(),
  disk: z.string(),
});

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
const joined = (...parts: (string | undefined)[]) => parts.filter((part) => part && part.trim() !== '' && part !== 'Default string').join(' ') || '—';

/** The "System info" menu item: what the licence is bound to and what the server runs on. */
export function registerSystemInfoRoutes(app: FastifyInstance): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/system/info',
    { schema: { tags: ['system'], response: { 200: systemInfoSchema } } },
    async () => {
      const [uuid, interfaces, board, cpu, mem, disks] = await Promise.all([
        si.uuid(),
        si.networkInterfaces(),
        si.baseboard(),
        si.cpu(),
        si.mem(),
        si.fsSize(),
      ]);
      const list = Array.isArray(interfaces) ? interfaces : [interfaces];
      const primary = list.find((nic) => nic.default) ?? list.find((nic) => !nic.internal && nic.ip4) ?? list[0];
      const disk = disks.find((entry) => entry.mount === '/') ?? disks[0];
      return {
        hardware_id: uuid.hardware || uuid.os || '—',
        ip_address: primary?.ip4 || primary?.ip6 || '—',
        server_time: new Date().toISOString(),
        motherboard: joined(board.manufacturer, board.model),
        processor: joined(cpu.manufacturer, cpu.brand, `(${cpu.cores} cores)`),
        ram: `${gib(mem.total)} (${gib(mem.available)} free)`,
        disk: disk ? `${gib(disk.size)} (${gib(disk.available)} free)` : '—',
      };
    },
  );
}
