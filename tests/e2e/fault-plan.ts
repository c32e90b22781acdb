// The emulator's fault plan (emulator/src/faults/plan.rs) as the e2e tests install it through its control endpoint,
// and the table as the service role reads it once the faults are off.
import type { RunningEmulator } from '../../scripts/lib/emulator.mjs';

export const TABLE_PATH = '/rest/v1/geocache_logs';

export type Fault =
  | { kind: 'latency'; ms: number | [number, number] }
  | { kind: 'status'; status: number; body?: 'postgrest' | 'plain' }
  | { kind: 'drop_before_response' }
  | { kind: 'drop_mid_response' }
  | { kind: 'truncate_body'; keep_bytes?: number }
  | { kind: 'non_json_body'; body?: string; content_type?: string }
  | { kind: 'out_of_order'; max_hold_ms?: number };

export interface FaultRule {
  methods?: ('GET' | 'POST')[];
  paths?: string[];
  every?: number;
  limit?: number;
  apply?: boolean;
  fault: Fault;
}

export interface FaultPlan {
  seed?: number;
  rules: FaultRule[];
}

/** Per rule: how many requests it matched and how many it faulted. */
export interface RuleStats {
  matched: number;
  fired: number;
}

/** A stored entry as PostgREST returns it. */
export interface StoredEntry {
  id: number;
  created_at: string;
  name: string;
  message: string;
}

/** The control endpoint, with the service-role key (the emulator's own routes are never faulted). */
export function faultControl(emulator: RunningEmulator) {
  const url = `${emulator.url}/emulator/v1/faults`;
  const headers = { apikey: emulator.serviceRoleKey, authorization: `Bearer ${emulator.serviceRoleKey}` };
  async function call(method: string, body?: FaultPlan): Promise<Response> {
    const response = await fetch(url, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
    return response;
  }
  return {
    /** Replaces the plan; the rules' counters start again from zero. */
    install: async (plan: FaultPlan) => void (await call('POST', plan)),
    clear: async () => void (await call('DELETE')),
    stats: async (): Promise<RuleStats[]> => ((await (await call('GET')).json()) as { stats: RuleStats[] }).stats,
  };
}

export type FaultControl = ReturnType<typeof faultControl>;

/**
 * Every stored entry by id, read as the service role. Reads go through /rest/v1 like the page's, so a plan that
 * matches GETs on the table would fault (and count) this read too: call it only when no such rule is installed.
 */
export async function readTable(emulator: RunningEmulator): Promise<StoredEntry[]> {
  const response = await fetch(`${emulator.url}${TABLE_PATH}?select=*&order=id.asc`, {
    headers: { apikey: emulator.serviceRoleKey, authorization: `Bearer ${emulator.serviceRoleKey}` },
  });
  if (response.status !== 200) throw new Error(`reading the table: ${response.status} ${await response.text()}`);
  return (await response.json()) as StoredEntry[];
}
