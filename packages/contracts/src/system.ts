import { z } from 'zod';

/** The "System info" menu item: what the licence is bound to and what the server runs on. */
export const systemInfoSchema = z.object({
  /** What the licence is bound to, and the server's address: null unless the caller is an administrator. */
  hardware_id: z.string().nullable(),
  ip_address: z.string().nullable(),
  server_time: z.string(),
  motherboard: z.string(),
  processor: z.string(),
  /** Sizes in GiB, as numbers: the console words them in the user's language. */
  ram_gib: z.number(),
  ram_free_gib: z.number(),
  disk_gib: z.number().nullable(),
  disk_free_gib: z.number().nullable(),
});
export type SystemInfo = z.infer<typeof systemInfoSchema>;
