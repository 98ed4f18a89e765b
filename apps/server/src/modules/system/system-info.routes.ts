import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import si from 'systeminformation';
import { systemInfoSchema } from '@voxplan/contracts';

const gib = (bytes: number) => Math.round((bytes / 1024 ** 3) * 10) / 10;
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
        ram_gib: gib(mem.total),
        ram_free_gib: gib(mem.available),
        disk_gib: disk ? gib(disk.size) : null,
        disk_free_gib: disk ? gib(disk.available) : null,
      };
    },
  );
}
