// Compile-time checks of `client.storage`'s TypeScript surface, as an npm user writes it with
// storage-js's names; the misuses marked @ts-expect-error must not type-check.
import { createClient, type Bucket, type FileObject, type StorageError } from "geocache-client";

export async function storageUsage(file: File): Promise<void> {
  const client = createClient("http://127.0.0.1:54321", "anon");
  const storage = client.storage;

  const buckets = await storage.listBuckets({ limit: 10, sortColumn: "created_at", sortOrder: "desc" });
  if (buckets.error) {
    const error: StorageError = buckets.error;
    const status: number | undefined = error.status;
    void [error.name === "StorageApiError", error.statusCode, error.code, status, buckets.data];
  } else {
    const first: Bucket | undefined = buckets.data[0];
    void first?.file_size_limit;
  }
  await storage.createBucket("photos", { public: true, fileSizeLimit: "1mb", allowedMimeTypes: ["image/*"] });
  await storage.createBucket("plain");
  await storage.updateBucket("photos", { public: false, fileSizeLimit: null });
  await storage.getBucket("photos");
  await storage.emptyBucket("photos");
  await storage.deleteBucket("photos");

  const photos = storage.from("photos");
  const uploaded = await photos.upload("teaser/box.jpg", file, { upsert: true, cacheControl: "60" });
  if (!uploaded.error) void [uploaded.data.id, uploaded.data.path, uploaded.data.fullPath];
  await photos.upload("notes/a.txt", "found it", { contentType: "text/plain", metadata: { by: "ann" } });
  await photos.upload("raw.bin", new Uint8Array([1, 2]));
  await photos.update("teaser/box.jpg", new FormData());

  const downloaded = await photos.download("teaser/box.jpg");
  if (!downloaded.error) {
    const blob: Blob = downloaded.data;
    void blob.size;
  }
  const listed = await photos.list("teaser", { limit: 5, offset: 0, search: "box", sortBy: { column: "name", order: "asc" } });
  if (!listed.error) {
    const entries: FileObject[] = listed.data;
    void entries[0]?.metadata;
  }
  await photos.list();
  const exists: boolean = (await photos.exists("teaser/box.jpg")).data;
  void exists;
  await photos.remove(["teaser/box.jpg"]);
  await photos.move("a.txt", "b.txt");
  const copied = await photos.copy("a.txt", "c.txt", { destinationBucket: "other" });
  if (!copied.error) void copied.data.path;

  const signed = await photos.createSignedUrl("a.txt", 60, { download: true });
  if (!signed.error) void signed.data.signedUrl;
  const many = await photos.createSignedUrls(["a.txt"], 60);
  if (!many.error) void many.data[0]?.signedUrl;
  const publicUrl: string = photos.getPublicUrl("a.txt", { download: "box.jpg" }).data.publicUrl;
  void publicUrl;
  const upload = await photos.createSignedUploadUrl("drop.txt", { upsert: true });
  if (!upload.error) await photos.uploadToSignedUrl(upload.data.path, upload.data.token, file);

  // @ts-expect-error the paths to remove are an array
  await photos.remove("a.txt");
  // @ts-expect-error a number is not a file body
  await photos.upload("a.txt", 5);
  // @ts-expect-error sortOrder is asc or desc
  await storage.listBuckets({ sortOrder: "up" });
}
