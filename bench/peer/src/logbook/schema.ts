import { z } from 'zod';

/** A row of public.geocache_logs as the REST API returns it. */
export const LogEntrySchema = z.object({
  id: z.number().int(),
  created_at: z.iso.datetime({ offset: true }),
  name: z.string(),
  message: z.string(),
});

export const LogEntriesSchema = LogEntrySchema.array();

export type LogEntry = z.infer<typeof LogEntrySchema>;
