/**
 * A loopback fake of the Telegram Bot API (Bun.serve on 127.0.0.1, port 0) that checks what it receives the way
 * Telegram does: the bot token in the path, JSON bodies, the fields each method needs and their types (text
 * length, chat action names, reaction shapes). Accepted calls are recorded in `calls`; refused ones answer
 * `{ok: false, error_code: 400 | 401, description}` and are listed in `rejected`, so a test can assert none was.
 * `getUpdates` long-polls like Telegram (offset confirms, timeout waits for the next pushed update), files
 * registered with `addFile` are served at `/file/bot<token>/<path>`, and `failNext` scripts an error answer.
 */
export interface TelegramCall {
  method: string;
  payload: Record<string, unknown>;
}

export interface TelegramRejection {
  path: string;
  status: number;
  description: string;
}

export interface FakeTelegram {
  /** The API base URL (`config.apiBaseUrl` / GOONDAN_TELEGRAM_API_BASE_URL). */
  url: string;
  token: string;
  calls: TelegramCall[];
  rejected: TelegramRejection[];
  /** Queues an update for getUpdates; returns its update_id. */
  pushUpdate(update: Record<string, unknown>): number;
  /** Queues a text message from a user in a private chat; returns its update_id. */
  sendUserMessage(options: {
    chatId: number;
    text: string;
    fromId?: number;
    username?: string;
    isBot?: boolean;
  }): number;
  addFile(options: { fileId: string; bytes: Uint8Array; contentType: string; filePath?: string }): void;
  /** The next call of `method` answers this error instead. */
  failNext(method: string, error: { errorCode: number; description: string; retryAfter?: number }): void;
  callsOf(method: string): TelegramCall[];
  close(): Promise<void>;
}

const CHAT_ACTIONS = new Set([
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "upload_document",
  "choose_sticker",
  "find_location",
  "record_video_note",
  "upload_video_note",
]);

class BadRequest extends Error {}

const isChatId = (value: unknown) =>
  (typeof value === "number" && Number.isInteger(value)) || (typeof value === "string" && /^(-?\d+|@\w+)$/.test(value));
const isMessageId = (value: unknown) => typeof value === "number" && Number.isInteger(value) && value > 0;

function need(condition: boolean, description: string): void {
  if (!condition) throw new BadRequest(`Bad Request: ${description}`);
}

/** Checks a method's payload the way the Bot API would refuse it. */
function checkPayload(method: string, payload: Record<string, unknown>): void {
  switch (method) {
    case "sendMessage":
      need(isChatId(payload.chat_id), "chat_id must be an integer or a numeric string");
      need(typeof payload.text === "string" && payload.text.length > 0, "message text is empty");
      need(typeof payload.text === "string" && payload.text.length <= 4096, "message is too long");
      if (payload.parse_mode !== undefined)
        need(
          ["Markdown", "MarkdownV2", "HTML"].includes(String(payload.parse_mode)),
          `unsupported parse_mode ${String(payload.parse_mode)}`,
        );
      if (payload.reply_parameters !== undefined)
        need(
          isMessageId((payload.reply_parameters as { message_id?: unknown }).message_id),
          "reply_parameters.message_id must be a positive integer",
        );
      return;
    case "editMessageText":
      need(isChatId(payload.chat_id) && isMessageId(payload.message_id), "chat_id and message_id are required");
      need(
        typeof payload.text === "string" && payload.text.length > 0 && payload.text.length <= 4096,
        "message text is empty or too long",
      );
      return;
    case "deleteMessage":
      need(isChatId(payload.chat_id) && isMessageId(payload.message_id), "chat_id and message_id are required");
      return;
    case "setMessageReaction":
      need(isChatId(payload.chat_id) && isMessageId(payload.message_id), "chat_id and message_id are required");
      need(
        Array.isArray(payload.reaction) &&
          payload.reaction.every(
            (item) =>
              (item as { type?: unknown }).type === "emoji" && typeof (item as { emoji?: unknown }).emoji === "string",
          ),
        "reaction must be a list of {type: emoji, emoji}",
      );
      return;
    case "sendChatAction":
      need(isChatId(payload.chat_id), "chat_id is required");
      need(CHAT_ACTIONS.has(String(payload.action)), `wrong parameter action in request: ${String(payload.action)}`);
      return;
    case "getFile":
      need(typeof payload.file_id === "string" && payload.file_id.length > 0, "file_id is required");
      return;
    case "getUpdates":
      return;
    default:
      throw new BadRequest(`Not Found: method ${method} is not known to this fake`);
  }
}

export async function startFakeTelegram(options: { token?: string } = {}): Promise<FakeTelegram> {
  const token = options.token ?? "123456:TEST-telegram-token";
  const calls: TelegramCall[] = [];
  const rejected: TelegramRejection[] = [];
  const updates: Record<string, unknown>[] = [];
  const files = new Map<string, { fileId: string; filePath: string; bytes: Uint8Array; contentType: string }>();
  const failures = new Map<string, { errorCode: number; description: string; retryAfter?: number }[]>();
  const pollers = new Set<() => void>();
  let nextUpdateId = 1000;
  let nextMessageId = 1;

  const refuse = (path: string, status: number, description: string) => {
    rejected.push({ path, status, description });
    return Response.json({ ok: false, error_code: status, description }, { status });
  };

  const result = (method: string, payload: Record<string, unknown>): unknown => {
    const now = Math.floor(Date.now() / 1000);
    switch (method) {
      case "sendMessage":
        return {
          message_id: nextMessageId++,
          date: now,
          chat: { id: Number(payload.chat_id), type: "private" },
          from: { id: 1, is_bot: true, first_name: "bot" },
          text: payload.text,
        };
      case "editMessageText":
        return {
          message_id: payload.message_id,
          date: now,
          edit_date: now,
          chat: { id: Number(payload.chat_id), type: "private" },
          text: payload.text,
        };
      case "getFile": {
        const file = files.get(String(payload.file_id));
        if (file === undefined) throw new BadRequest("Bad Request: invalid file_id");
        return {
          file_id: file.fileId,
          file_unique_id: `u-${file.fileId}`,
          file_size: file.bytes.byteLength,
          file_path: file.filePath,
        };
      }
      default:
        return true;
    }
  };

  const pendingUpdates = (offset: number) => updates.filter((update) => Number(update.update_id) >= offset);

  const getUpdates = async (payload: Record<string, unknown>, signal: AbortSignal): Promise<unknown[]> => {
    const offset = Number(payload.offset ?? 0);
    if (offset > 0)
      for (let index = updates.length - 1; index >= 0; index--)
        if (Number(updates[index]?.update_id) < offset) updates.splice(index, 1);
    const timeoutSeconds = Math.min(Number(payload.timeout ?? 0), 50);
    if (pendingUpdates(offset).length === 0 && timeoutSeconds > 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          pollers.delete(done);
          resolve();
        };
        const timer = setTimeout(done, timeoutSeconds * 1000);
        pollers.add(done);
        signal.addEventListener("abort", done);
      });
    }
    return pendingUpdates(offset);
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch: async (request) => {
      const url = new URL(request.url);
      const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
      if (fileMatch) {
        if (fileMatch[1] !== token) return refuse(url.pathname, 401, "Unauthorized");
        const file = [...files.values()].find(
          (candidate) => candidate.filePath === decodeURIComponent(fileMatch[2] ?? ""),
        );
        if (file === undefined) return refuse(url.pathname, 404, "Not Found");
        return new Response(file.bytes, {
          headers: { "content-type": file.contentType, "content-length": String(file.bytes.byteLength) },
        });
      }
      const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
      if (!match) return refuse(url.pathname, 404, "Not Found");
      if (match[1] !== token) return refuse(url.pathname, 401, "Unauthorized");
      const method = match[2] ?? "";
      let payload: Record<string, unknown> = Object.fromEntries(url.searchParams);
      if (request.method === "POST") {
        if (!(request.headers.get("content-type") ?? "").startsWith("application/json"))
          return refuse(url.pathname, 400, "Bad Request: expected a JSON body");
        try {
          payload = { ...payload, ...((await request.json()) as Record<string, unknown>) };
        } catch {
          return refuse(url.pathname, 400, "Bad Request: body is not JSON");
        }
      }
      try {
        checkPayload(method, payload);
        const failure = failures.get(method)?.shift();
        if (failure !== undefined) {
          calls.push({ method, payload });
          return Response.json(
            {
              ok: false,
              error_code: failure.errorCode,
              description: failure.description,
              ...(failure.retryAfter === undefined ? {} : { parameters: { retry_after: failure.retryAfter } }),
            },
            { status: failure.errorCode },
          );
        }
        if (method === "getUpdates") {
          calls.push({ method, payload });
          return Response.json({ ok: true, result: await getUpdates(payload, request.signal) });
        }
        const answer = result(method, payload);
        calls.push({ method, payload });
        return Response.json({ ok: true, result: answer });
      } catch (error) {
        if (error instanceof BadRequest) return refuse(url.pathname, 400, error.message);
        throw error;
      }
    },
  });

  const pushUpdate = (update: Record<string, unknown>): number => {
    const updateId = nextUpdateId++;
    updates.push({ update_id: updateId, ...update });
    for (const wake of [...pollers]) wake();
    return updateId;
  };

  return {
    url: `http://127.0.0.1:${server.port}`,
    token,
    calls,
    rejected,
    pushUpdate,
    sendUserMessage: ({ chatId, text, fromId, username, isBot }) =>
      pushUpdate({
        message: {
          message_id: nextMessageId++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: chatId, type: "private", username: username ?? "someone" },
          from: { id: fromId ?? chatId, is_bot: isBot ?? false, first_name: "Some", username: username ?? "someone" },
          text,
        },
      }),
    addFile: ({ fileId, bytes, contentType, filePath }) =>
      void files.set(fileId, { fileId, bytes, contentType, filePath: filePath ?? `documents/${fileId}.bin` }),
    failNext: (method, error) => void failures.set(method, [...(failures.get(method) ?? []), error]),
    callsOf: (method) => calls.filter((call) => call.method === method),
    close: async () => {
      for (const wake of [...pollers]) wake();
      await server.stop(true);
    },
  };
}
