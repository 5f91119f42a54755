/**
 * What a channel tool's `downloadFile` hands back: the file's type and size, optionally saved under the
 * agent's workspace (`savePath`, confined like file-system paths), and inline as base64 and a data URL when
 * it is small enough to read (at most INLINE_LIMIT_BYTES, so the result stays well under the tool output cap);
 * a larger file is saved or described, never cut into broken base64.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { JsonObject } from "../../shared/json.ts";
import type { ToolContext } from "../../tools/types.ts";
import { resolveConfinedPath } from "../../tools/workdir-path.ts";

export const INLINE_LIMIT_BYTES = 64 * 1024;

export interface FileResultOptions {
  ctx: Pick<ToolContext, "workdir">;
  bytes: Uint8Array;
  contentType: string | undefined;
  includeBase64: boolean;
  includeDataUrl: boolean;
  savePath: string | undefined;
}

export async function fileResult(options: FileResultOptions): Promise<JsonObject> {
  const { bytes } = options;
  let savedPath: string | null = null;
  if (options.savePath !== undefined && options.savePath.trim() !== "") {
    const target = await resolveConfinedPath({ root: options.ctx.workdir, path: options.savePath.trim() });
    await mkdir(dirname(target.absolute), { recursive: true });
    await writeFile(target.absolute, bytes);
    savedPath = target.relative;
  }
  const inline = options.includeBase64 && bytes.byteLength <= INLINE_LIMIT_BYTES;
  const base64 = inline ? Buffer.from(bytes).toString("base64") : null;
  const result: JsonObject = {
    contentType: options.contentType ?? null,
    sizeBytes: bytes.byteLength,
    savedPath,
    base64,
    dataUrl:
      inline && options.includeDataUrl && options.contentType !== undefined && bytes.byteLength > 0
        ? `data:${options.contentType};base64,${base64}`
        : null,
  };
  if (options.includeBase64 && !inline) {
    result.inlineOmitted = `the file is ${bytes.byteLength} bytes, more than the ${INLINE_LIMIT_BYTES} shown inline${savedPath === null ? "; pass savePath to keep it in the workspace" : ""}`;
  }
  return result;
}
