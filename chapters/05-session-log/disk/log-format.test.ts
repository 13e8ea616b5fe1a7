// How a log's first bytes tell its format: a JSON array when the first byte that is not white space is
// "[", UTF-16 (refused, named by its byte order mark) when it opens with FF FE or FE FF, JSONL otherwise.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { describe, expect } from "vitest";
import { thrownAs } from "../../../exercises/05-session-log/thrown.ts";
import { test } from "../../common/temp-folder.ts";
import { descriptorsOn } from "../testing/real-faults.ts";
import { LogFileError } from "./log-file-types.ts";
import { parseLogText, readLogFile } from "./log-file.ts";

const event = '{"id":0,"type":"turn/start","ts":1,"data":{"turn":1}}';

function refusal(bytes: Uint8Array | string): string {
  return thrownAs(LogFileError, () => parseLogText(bytes)).message;
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

describe("what the reader says of a file it cannot read as a log, exactly", () => {
  test("a file whose only line is torn is NOTHING_READ, saying which way: no newline at its end, or not an event's JSON", () => {
    expect(refusal(event)).toContain("no event could be read: the file's only line has no newline at its end (53 bytes)");
    expect(refusal("\0\0\0\n")).toContain("no event could be read: the file's only line is not an event's JSON (4 bytes)");
  });

  test("a JSON array that is not UTF-8 is BAD_JSON saying so, not a JSON syntax error", () => {
    const error = thrownAs(LogFileError, () =>
      parseLogText(Buffer.concat([Buffer.from(`[${event},"`), Buffer.from([0xc3, 0x28]), Buffer.from('"]')])),
    );
    expect(error.code).toBe("BAD_JSON");
    expect(error.message).toBe("log: the log is not valid UTF-8");
  });

  test("a JSON array is read whole, not by lines: its CRLF line ends are JSON white space, not reported as crlf", () => {
    const loaded = parseLogText(`[\r\n${event}\r\n]\r\n`);
    expect(loaded).toMatchObject({ format: "json-array", torn: undefined, crlf: false });
  });

  test("the session options reach replay: an event type given a schema is checked against it", () => {
    const line = '{"id":0,"type":"note/added","ts":1,"data":{"text":7}}\n';
    expect(parseLogText(line).session.events).toHaveLength(1);
    const schemas = { "note/added": z.object({ text: z.string() }) };
    expect(() => parseLogText(line, { schemas })).toThrow(expect.objectContaining({ code: "REPLAY", line: 1 }));
  });

  test("an error of the caller's own schema (it throws instead of refusing) comes out as thrown: it is not the log's fault, so no line is blamed", () => {
    const line = '{"id":0,"type":"note/added","ts":1,"data":{}}\n';
    const mistake = new RangeError("a bug in the caller's schema");
    const schemas = {
      "note/added": z.object({}).refine(() => {
        throw mistake;
      }),
    };
    expect(thrownAs(RangeError, () => parseLogText(line, { schemas }))).toBe(mistake);
  });

  test("readLogFile closes the file it read, loaded or refused", ({ dir }) => {
    const file = path.join(dir, "run.jsonl");
    writeFileSync(file, `${event}\n`);
    expect(readLogFile(file).session.events).toHaveLength(1);
    expect(descriptorsOn(file), "loaded").toEqual([]);
    writeFileSync(file, "not json\n{}\n");
    expect(thrownAs(LogFileError, () => readLogFile(file)).code).toBe("BAD_LINE");
    expect(descriptorsOn(file), "refused").toEqual([]);
  });
});
