// Given for step p2 (练习2): you don't need to change this file.
// The two new event types join the vocabulary by declaration merging, so that
// `session.append("ui/diff-preview", { path, diff })` type-checks. Their runtime schemas are yours
// to write, in ../coding-assistant.ts.

declare module "../../../chapters/05-session-log/events.ts" {
  interface SessionEventMap {
    /** The UI showed the user a pending edit as a diff, before it was applied. */
    "ui/diff-preview": { path: string; diff: string };
    /** The agent read a file: which one, how big, and which version (its SHA-256), not the content. */
    "inspect/file-read": { path: string; bytes: number; sha256: string };
  }
}

export {};
