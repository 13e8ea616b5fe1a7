// How a log's first bytes tell its format: a JSON array when the first byte that is not white space is
// "[", UTF-16 (refused, named by its byte order mark) when it opens with FF FE or FE FF, JSONL otherwise.
import { describe, expect, test } from "vitest";
import { LogFileError } from "./log-file-types.ts";
import { parseLogText } from "./log-file.ts";

const event = '{"id":0,"type":"turn/start","ts":1,"data":{"turn":1}}';

function refusal(bytes: Uint8Array): string {
  try {
    parseLogText(bytes);
  } catch (error) {
    if (error instanceof LogFileError) return error.message;
    throw error;
  }
  return expect.unreachable("the bytes were read as a log");
}

describe("the format is told by the first bytes", () => {
  test.each([
    ["a space", " "],
    ["a tab", "\t"],
    ["a line break", "\n"],
    ["a Windows line break", "\r\n"],
  ])("a JSON array after %s is still a JSON array: white space before [ is skipped", (_, blank) => {
    expect(parseLogText(`${blank}[${event}]`).format).toBe("json-array");
  });

  test("UTF-16 is named by its byte order mark: FF FE is UTF-16LE, FE FF is UTF-16BE", () => {
    expect(refusal(Buffer.from([0xff, 0xfe, 0x7b, 0x00]))).toContain("this is UTF-16LE text");
    expect(refusal(Buffer.from([0xfe, 0xff, 0x00, 0x7b]))).toContain("this is UTF-16BE text");
  });

  test("only both bytes of the mark make UTF-16: FF or FE alone before other bytes is a line that is not UTF-8", () => {
    for (const bytes of [
      [0xff, 0x7b],
      [0x7b, 0xfe],
      [0xfe, 0x7b],
      [0x7b, 0xff],
    ]) {
      expect(refusal(Buffer.from(bytes)), bytes.join(" ")).not.toContain("UTF-16");
    }
  });

  test("a line in the middle that is not UTF-8 is refused as such, not as a line that is not JSON", () => {
    const line = Buffer.from(`${event}\n`);
    expect(refusal(Buffer.concat([line, Buffer.from([0xc3, 0x28, 0x0a]), line]))).toContain("the line is not valid UTF-8");
  });
});
