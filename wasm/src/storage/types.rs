//! The TypeScript types `client.storage`'s pinned signatures name, as storage-js declares them.

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen(typescript_custom_section)]
const STORAGE_TYPES: &'static str = r#"
/**
 * A failed storage call, as storage-js's error classes: `StorageApiError` (the server refused:
 * `status` is the HTTP status, `statusCode` the body's `statusCode`, `code` the body's `code`),
 * `StorageUnknownError` (no answer, e.g. `Failed to fetch`) or `StorageError` (an answer the
 * client could not use).
 */
export interface StorageError extends Error {
  name: "StorageApiError" | "StorageUnknownError" | "StorageError";
  status?: number;
  statusCode?: string;
  code?: string;
  __isStorageError: true;
}

/** What every storage call resolves to; it never rejects for a storage failure. */
export type StorageResult<T> = { data: T; error: null } | { data: null; error: StorageError };

export interface Bucket {
  id: string;
  name: string;
  owner: string;
  public: boolean;
  file_size_limit?: number | null;
  allowed_mime_types?: string[] | null;
  type?: "STANDARD" | "ANALYTICS";
  created_at: string;
  updated_at: string;
}

export interface ListBucketOptions {
  limit?: number;
  offset?: number;
  search?: string;
  sortColumn?: "id" | "name" | "created_at" | "updated_at";
  sortOrder?: "asc" | "desc";
}

/** `createBucket` / `updateBucket` options; `fileSizeLimit` in bytes or as text (`"1mb"`). */
export interface BucketOptions {
  public?: boolean;
  fileSizeLimit?: number | string | null;
  allowedMimeTypes?: string[] | null;
  /** `createBucket` only. */
  type?: "STANDARD" | "ANALYTICS";
}

/** A Blob or File goes as a multipart form, a FormData as it is, the rest raw. */
export type FileBody = Blob | File | FormData | ArrayBuffer | ArrayBufferView | string;

export interface FileOptions {
  /** Seconds, sent as `max-age=<n>` (default "3600"). */
  cacheControl?: string | number;
  /** For raw bodies (default `text/plain;charset=UTF-8`); a Blob carries its own type. */
  contentType?: string;
  /** Replace an existing file (default false; `upload` only). */
  upsert?: boolean;
  metadata?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface SearchOptions {
  /** Default 100. */
  limit?: number;
  /** Default 0. */
  offset?: number;
  search?: string;
  /** Default `{ column: "name", order: "asc" }`. */
  sortBy?: { column?: string; order?: "asc" | "desc" };
}

/** A file (its `id` set) or a folder (`id: null`) in a listing. */
export interface FileObject {
  name: string;
  id: string | null;
  updated_at: string | null;
  created_at: string | null;
  last_accessed_at: string | null;
  metadata: Record<string, unknown> | null;
  [key: string]: unknown;
}

export interface DestinationOptions {
  destinationBucket?: string;
}

/** `download: true` saves under the stored name, a string under that name. */
export interface DownloadOptions {
  download?: boolean | string;
}

export interface SignedUrl {
  error: string | null;
  path: string | null;
  signedURL: string | null;
  signedUrl: string | null;
}
"#;
