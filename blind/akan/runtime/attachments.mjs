// Attachments (guideline, "Attachments And Speech").
//
// The paperclip admits files into the composer one at a time. The ceilings belong to the message: one
// file at most 4 MB, the message at most 8 MB and five files, and a file attached again is refused, naming it.
// The refusal happens here, naming the file, so a message that cannot be sent is never built. The app's
// reader is asked first, then the built-in one (an image rides as bytes, a text file as text, anything else is a
// `file` nothing read). `readableParts` is AgentService.readable: what the provider cannot read becomes a
// note naming the file, never a silent drop.

export const MB = 1024 * 1024;
export const LIMITS = { perFile: 4 * MB, perMessage: 8 * MB, files: 5 };

/** @param {{name: string, type?: string, size: number, text?: string, data?: string}} file */
export async function readAttachment(file, reader) {
  const base = { name: file.name, mime: file.type ?? "application/octet-stream", size: file.size };
  if (reader) {
    const read = await reader(file);
    if (read) return { ...base, ...read };
  }
  if (base.mime.startsWith("image/")) return { ...base, kind: "image", ...(file.data != null ? { data: file.data } : {}) };
  if (base.mime.startsWith("text/") || file.text != null) return { ...base, kind: "text", text: file.text ?? "" };
  return { ...base, kind: "file", ...(file.data != null ? { data: file.data } : {}) };
}

/**
 * Why a file cannot join the files already waiting, or null.
 * @returns {{reason: string, text: string} | null}
 */
export function refusalFor(file, waiting) {
  if (waiting.some((w) => w.name === file.name)) return { reason: "duplicate", text: `"${file.name}" is already attached.` };
  if (file.size > LIMITS.perFile) return { reason: "file-too-large", text: `"${file.name}" was not attached: a file may be at most 4 MB.` };
  if (waiting.length >= LIMITS.files) return { reason: "too-many-files", text: `"${file.name}" was not attached: a message carries at most ${LIMITS.files} files.` };
  const total = waiting.reduce((sum, w) => sum + w.size, 0) + file.size;
  if (total > LIMITS.perMessage) return { reason: "message-too-large", text: `"${file.name}" was not attached: the files of one message may total at most 8 MB.` };
  return null;
}

/** What web storage keeps of an attachment: its name only. */
export const forStorage = (a) => ({ name: a.name });

/**
 * The provider-facing parts of one user message's attachments.
 * @param {{image?: boolean, document?: boolean}} accepts
 */
export function readableParts(attachments, accepts) {
  return attachments.map((a) => {
    if (!a.kind) return { type: "text", text: `[attachment "${a.name}": its content was not kept when the chat was saved]` };
    if (a.kind === "text" || (a.kind === "document" && !accepts.document && a.text != null)) {
      return { type: "text", text: `[attachment "${a.name}"]\n${a.text ?? ""}` };
    }
    if ((a.kind === "image" && accepts.image) || (a.kind === "document" && accepts.document)) {
      const part = { type: a.kind, name: a.name, mime: a.mime };
      if (a.data != null) part.data = a.data;
      if (a.text != null) part.text = a.text;
      return part;
    }
    return { type: "text", text: `[attachment "${a.name}" (${a.mime ?? a.kind}) could not be read by this model; only its name is known]` };
  });
}
