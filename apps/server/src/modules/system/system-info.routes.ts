import type { SystemInfo } from '@voxplan/contracts';
import { systemInfoSchema } from '@voxplan/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import si from 'systeminformation';
import { actorOf } from '../../plugins/auth.ts';

const gib = (bytes: number) => Math.round((bytes / 1024 ** 3) * 10) / 10;
const joined = (...parts: (string | undefined)[]) => parts.filter((part) => part && part.trim() !== '' && part !== 'Default string').join(' ') || '—';

/** How long one reading of the host answers every request: memory and disk figures this old are still true enough. */
export const SYSTEM_INFO_TTL_MS = 5_000;

/** What the host reading holds: the system info's fields, and the memory and disk in bytes (the dashboard's system status). */
export type HostReading = Omit<SystemInfo, 'server_time'> & {
  hardware_id: string;
  ip_address: string;
  bytes: { memory_total: number; memory_available: number; disk_total: number | null; disk_available: number | null };
};

/**
 * The id the licence is bound to: the board's UUID (DMI), else the operating system's machine id
 * (containers and virtual machines without DMI access), '—' when neither can be read.
 */
export const hardwareIdOf = (uuid: { hardware: string; os: string }): string => uuid.hardware || uuid.os || '—';

/** This server's hardware id, read once: it does not change while the process runs. */
let hardwareId: Promise<string> | undefined;
export function readHardwareId(): Promise<string> {
  hardwareId ??= si.uuid().then(hardwareIdOf);
  return hardwareId;
}

/** Reads the host: systeminformation runs commands (dmidecode, ip, df…), a few dozen milliseconds of work each time. */
async function readHost(): Promise<HostReading> {
  const [uuid, interfaces, board, cpu, mem, disks] = await Promise.all([si.uuid(), si.networkInterfaces(), si.baseboard(), si.cpu(), si.mem(), si.fsSize()]);
  const list = Array.isArray(interfaces) ? interfaces : [interfaces];
  const primary = list.find((nic) => nic.default) ?? list.find((nic) => !nic.internal && nic.ip4) ?? list[0];
  const disk = disks.find((entry) => entry.mount === '/') ?? disks[0];
  return {
    hardware_id: hardwareIdOf(uuid),
    ip_address: primary?.ip4 || primary?.ip6 || '—',
    motherboard: joined(board.manufacturer, board.model),
    processor: joined(cpu.manufacturer, cpu.brand, `(${cpu.cores} cores)`),
    ram_gib: gib(mem.total),
    ram_free_gib: gib(mem.available),
    disk_gib: disk ? gib(disk.size) : null,
    disk_free_gib: disk ? gib(disk.available) : null,
    bytes: { memory_total: mem.total, memory_available: mem.available, disk_total: disk?.size ?? null, disk_available: disk?.available ?? null },
  };
}

/** One reading of the host per application, shared by every route that shows it. */
export const createHostReading = (): (() => Promise<HostReading>) => cachedReading(readHost, SYSTEM_INFO_TTL_MS);

/**
 * `read` at most once per `ttlMs`, and never twice at once: callers while a reading runs share it
 * (single flight). Fifty users opening the page at once used to start fifty sets of host
 * commands and held every other request for seconds. A failed reading is not kept.
 */
export function cachedReading<T>(read: () => Promise<T>, ttlMs: number, now: () => number = Date.now): () => Promise<T> {
  let current: { value: Promise<T>; readAt: number } | undefined;
  return () => {
    if (current && now() - current.readAt < ttlMs) return current.value;
    const entry = { value: read(), readAt: now() };
    current = entry;
    entry.value.catch(() => {
      if (current === entry) current = undefined;
    });
    return entry.value;
  };
}

/**
 * The "System info" menu item: what the licence is bound to and what the server runs on. The
 * hardware id and the address are an administrator's (docs/decisions.md): null for anybody else.
 */
export function registerSystemInfoRoutes(app: FastifyInstance, reading: () => Promise<HostReading> = createHostReading()): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/system/info',
    { schema: { tags: ['system'], response: { 200: systemInfoSchema } } },
    async (request): Promise<SystemInfo> => {
      const { bytes: _bytes, ...host } = await reading();
      const isAdmin = actorOf(request).role === 'admin';
      return {
        ...host,
        hardware_id: isAdmin ? host.hardware_id : null,
        ip_address: isAdmin ? host.ip_address : null,
        server_time: new Date().toISOString(),
      };
    },
  );
}
