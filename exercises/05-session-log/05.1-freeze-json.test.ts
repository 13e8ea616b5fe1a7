// Step 05.1 — freezeJson (book §5.3, point 1: `_freeze_json`). Before event data enters the log it
// is checked to be plain JSON, copied, and deep-frozen, all in one pass, so nobody can change what
// was logged. Anything else is a JsonValueError whose `path` names the bad spot:
//   `$`        the value itself            `[2]`       an array index
//   `.name`    an object key that is an identifier: ASCII letters, digits, `_` and `$`, not
//              starting with a digit
//   `["a b"]`  any other key, written as a JSON string (`JSON.stringify(key)`)
// e.g. `$.a[2]["weird key"]`. Its `reason` says what is wrong there, in your own words, as long as
// it uses the word a learner would search for (the table below lists them: "circular", "NaN", the
// class name of a non-plain object, "hole", "getter"…). A value may nest at most MAX_JSON_DEPTH
// levels: the most a saved log can hold (see its comment in json-value.ts).
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { freezeJson } from "./json.ts";
import { JsonValueError, MAX_JSON_DEPTH, type JsonValue } from "../../chapters/05-session-log/json-value.ts";
import { caughtAs, thrownAs } from "./thrown.ts";

// ── helpers ───────────────────────────────────────────────────────────────────────────────────────

/** The JsonValueError freezeJson throws for `value`; anything else (or nothing) fails the test. */
function rejectionOf(value: unknown): JsonValueError {
  const rejection = thrownAs(
    JsonValueError,
    () => freezeJson(value),
    "freezeJson 收到的值不是 JSON / freezeJson was given a value that is not JSON",
  );
  expect(
    rejection.reason,
    "给 JsonValueError 一个 reason：那个位置出了什么问题 / give the JsonValueError a reason: what is wrong at that spot",
  ).toMatch(/\S/);
  expect(
    rejection.name,
    "给定的 JsonValueError 类自己带着名字：不要改它 / the given JsonValueError class names itself: do not change its name",
  ).toBe("JsonValueError");
  return rejection;
}

/** The path for a list of keys and indexes, by the rule at the top of this file. */
function pathFrom(keys: readonly (string | number)[]): string {
  const parts = keys.map((key) =>
    typeof key === "number" ? `[${key}]` : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`,
  );
  return `$${parts.join("")}`;
}

/** Every object and array inside `value` (itself included), with its path. A loop, not recursion. */
function containersOf(value: unknown): [string, object][] {
  const found: [string, object][] = [];
  const stack: [(string | number)[], unknown][] = [[[], value]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [keys, item] = next;
    if (typeof item !== "object" || item === null) continue;
    found.push([pathFrom(keys), item]);
    for (const [key, child] of Object.entries(item)) stack.push([[...keys, Array.isArray(item) ? Number(key) : key], child]);
  }
  return found;
}

/**
 * The copy's objects have Object.prototype and its arrays Array.prototype, as if the value had been
 * through JSON.stringify and JSON.parse: a log read back from a file then holds the same values as
 * the live one, and the data prints and compares like any other object.
 */
function expectOrdinary(result: unknown): void {
  for (const [path, container] of containersOf(result)) {
    const wanted = Array.isArray(container) ? Array.prototype : Object.prototype;
    expect(
      Object.getPrototypeOf(container) === wanted,
      `${path}：用 {} 或 [] 建副本，不要用 Object.create(null)；它的原型必须是 ${wanted === Array.prototype ? "Array" : "Object"}.prototype，和 JSON.parse 建出来的一样 / ` +
        `${path}: build the copy with {} or [], not Object.create(null): its prototype must be ${wanted === Array.prototype ? "Array" : "Object"}.prototype, as JSON.parse would make it`,
    ).toBe(true);
  }
}

function expectDeepFrozen(result: unknown): void {
  for (const [path, container] of containersOf(result)) {
    expect(
      Object.isFrozen(container),
      `${path} 没有冻结：副本里的每个对象和数组都要冻结 / ${path} is not frozen: freeze every object and array of the copy`,
    ).toBe(true);
  }
}

/** freezeJson, with a hint when it overflows the call stack (your RangeError kept as the cause, with its line). */
function freezeDeep(value: unknown): JsonValue {
  try {
    return freezeJson(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new Error(
      `调用栈溢出（${error.message}）：先检查深度再往下一层，到 MAX_JSON_DEPTH 为止 / ` +
        `${error.message}: check the depth before going one level deeper, and stop at MAX_JSON_DEPTH`,
      { cause: error },
    );
  }
}

/** `levels` arrays (or objects) nested around `bottom`: nested(2, "x") is [["x"]], 2 levels. A loop. */
function nested(levels: number, bottom: unknown, kind: "array" | "object" = "array"): unknown {
  let value = bottom;
  for (let i = 0; i < levels; i++) value = kind === "array" ? [value] : { next: value };
  return value;
}

// JSON that freezeJson accepts. Not `fc.jsonValue()`: its numbers include -0 and integers past 2^53
// (1e300…), which are rejected. Objects are sometimes null-prototype; keys include "__proto__".
const numberArb = fc.oneof(
  fc.maxSafeInteger(),
  fc.double({ min: -1e15, max: 1e15, noNaN: true }).map((x) => (Object.is(x, -0) ? 0 : x)),
);
const jsonArb: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 4, depthIdentifier: "json" },
    fc.constant(null),
    fc.boolean(),
    numberArb,
    fc.string(),
    fc.array(tie("value"), { maxLength: 4, depthIdentifier: "json" }),
    fc.dictionary(fc.string(), tie("value"), { maxKeys: 4, depthIdentifier: "json" }),
  ),
})).value;

// ── what it accepts ───────────────────────────────────────────────────────────────────────────────

describe("05.1 freezeJson：接受什么 / what it accepts", () => {
  test.each([
    ["null", "null", null],
    ["true", "true", true],
    ["false", "false", false],
    ["0", "0", 0],
    ["负整数", "a negative integer", -7],
    ["小数", "a fraction", 1.5],
    ["极小的小数", "a tiny fraction", 5e-324],
    ["很大的小数（2^52 − 0.5）", "a big fraction (2^52 − 0.5)", 2 ** 52 - 0.5],
    ["最大的安全整数", "the largest safe integer", Number.MAX_SAFE_INTEGER],
    ["最小的安全整数", "the smallest safe integer", Number.MIN_SAFE_INTEGER],
    ["空字符串", "an empty string", ""],
    ["字符串", "a string", "1+2*3 等于几？"],
  ])("JSON 原始值原样返回：%s / a JSON primitive comes back as it is: %s", (_zh, _en, value) => {
    expect(
      Object.is(freezeJson(value), value),
      `freezeJson(${String(value)}) 必须原样返回它 / freezeJson(${String(value)}) must return it unchanged`,
    ).toBe(true);
  });

  test("嵌套的对象和数组返回相等的副本 / nested objects and arrays come back as an equal copy", () => {
    const input = { user: { name: "ada", tags: ["a", "b"] }, scores: [1, 2.5, null, true], empty: {}, none: [] };
    const result = freezeJson(input);
    expect(result).toEqual({
      user: { name: "ada", tags: ["a", "b"] },
      scores: [1, 2.5, null, true],
      empty: {},
      none: [],
    });
    expect(result, "返回副本，不要返回输入本身 / return a copy, not the input itself").not.toBe(input);
    const copy = result as typeof input;
    expect(copy.user, "嵌套的对象也要复制 / copy nested objects too").not.toBe(input.user);
    expect(copy.user.tags, "嵌套的数组也要复制 / copy nested arrays too").not.toBe(input.user.tags);
  });

  test("对象的键保持原来的顺序 / object keys keep their order", () => {
    const result = freezeJson({ zeta: 1, alpha: 2, mid: { b: 1, a: 2 } }) as { mid: object };
    expect(Object.keys(result)).toEqual(["zeta", "alpha", "mid"]);
    expect(Object.keys(result.mid)).toEqual(["b", "a"]);
  });

  test("原型为 null 的对象照常接受 / a null-prototype object is accepted", () => {
    const input = Object.assign(Object.create(null) as object, { a: 1, b: [{ c: "x" }] });
    expect(freezeJson(input)).toEqual({ a: 1, b: [{ c: "x" }] });
  });

  test("不管输入的原型是什么，副本都由普通的对象和数组组成，和 JSON.parse 建出来的一样 / the copy is made of ordinary objects and arrays, as JSON.parse makes them, whatever the input's prototype", () => {
    const inner = Object.assign(Object.create(null) as object, { c: "x" });
    const input = Object.assign(Object.create(null) as object, { a: 1, b: [inner], d: { e: inner } });
    expectOrdinary(freezeJson(input));
    expectOrdinary(freezeJson({ plain: [{ nested: {} }] }));
  });

  test("共享（不是循环）的引用照常接受 / a shared (non-cyclic) reference is accepted", () => {
    const shared = { n: 1 };
    const row = [1, 2];
    const input = { a: shared, b: [shared, { c: shared }], rows: [row, row] };
    const expected = {
      a: { n: 1 },
      b: [{ n: 1 }, { c: { n: 1 } }],
      rows: [
        [1, 2],
        [1, 2],
      ],
    };
    expect(
      freezeJson(input),
      "同一个对象并排出现两次不是循环：只有对象包含它自己才是 / the same object twice side by side is not a cycle: only an object inside itself is",
    ).toEqual(expected);
  });

  test('"__proto__" 键（JSON.parse 会产生它）仍是副本自己的属性 / a "__proto__" key (as JSON.parse makes it) stays an own property of the copy', () => {
    const input: unknown = JSON.parse('{"__proto__": {"admin": true}, "x": 1}');
    const result = freezeJson(input) as object;
    expect(
      Object.getOwnPropertyDescriptor(result, "__proto__")?.value,
      '用 Object.defineProperty 写入键：`copy["__proto__"] = v` 改的是原型 / use Object.defineProperty for keys: `copy["__proto__"] = v` changes the prototype instead',
    ).toEqual({ admin: true });
    expect("admin" in result, "副本的原型不能变 / the copy's prototype must not change").toBe(false);
    expect(Object.keys(result)).toEqual(["__proto__", "x"]);
  });

  test("任何 JSON 值都被接受，副本和它相等 / every JSON value is accepted, and the copy equals it", () => {
    fc.assert(
      fc.property(jsonArb, (value) => {
        const copy = freezeJson(value);
        expect(copy).toEqual(value);
        expectOrdinary(copy);
      }),
    );
  });

  test("用在几处的值（共享，不是循环）照常接受 / a value used in several places (shared, not circular) is accepted", () => {
    fc.assert(
      fc.property(jsonArb, jsonArb, (shared, other) => {
        const input = { first: shared, list: [other, shared], nested: { again: [shared] } };
        expect(
          freezeJson(input),
          "只有对象包含它自己才是循环，遇到两次不是 / only an object inside itself is a cycle, not one met twice",
        ).toEqual(input);
      }),
    );
  });
});

// ── a deep-frozen copy ────────────────────────────────────────────────────────────────────────────

describe("05.1 freezeJson：深度冻结的副本 / a deep-frozen copy", () => {
  test("结果里的每个对象和数组都冻结了，往里写会抛错 / every object and array in the result is frozen, and writing to one throws", () => {
    const result = freezeJson({ user: { name: "ada", tags: ["a"] }, rows: [[1], { x: 2 }] });
    expectDeepFrozen(result);
    const user = (result as { user: { name: string; tags: string[] } }).user;
    // Test files are ES modules, so strict mode: a write to a frozen object throws a TypeError.
    thrownAs(TypeError, () => (user.name = "eve"), "嵌套的对象必须冻结 / a nested object must be frozen");
    thrownAs(TypeError, () => user.tags.push("b"), "嵌套的数组必须冻结 / a nested array must be frozen");
    thrownAs(TypeError, () => ((result as Record<string, unknown>)["added"] = 1), "最外层必须冻结 / the top must be frozen");
  });

  test("结果是副本：事后改输入不影响它 / the result is a copy: changing the input afterwards changes nothing", () => {
    const input = { user: { name: "ada", tags: ["a"] }, rows: [[1], { x: 2 }] };
    const result = freezeJson(input);
    input.user.name = "eve";
    input.user.tags.push("b");
    input.rows.pop();
    expect(result, "结果不能和输入共用对象或数组 / the result must not share objects or arrays with the input").toEqual({
      user: { name: "ada", tags: ["a"] },
      rows: [[1], { x: 2 }],
    });
  });

  test("调用方的输入保持原样：不被冻结 / the caller's input is left as it was: not frozen", () => {
    const input = { user: { tags: ["a"] } };
    expect(freezeJson(input)).toEqual({ user: { tags: ["a"] } });
    for (const [path, container] of containersOf(input)) {
      expect(
        Object.isFrozen(container),
        `输入的 ${path} 被冻结了：冻结副本，不要冻结输入 / ${path} of the input was frozen: freeze the copy, not the input`,
      ).toBe(false);
    }
  });

  test("结果里的每个对象和数组都冻结了，而且是新的 / every object and array in the result is frozen and new", () => {
    fc.assert(
      fc.property(jsonArb, (value) => {
        const result = freezeJson(value);
        expectDeepFrozen(result);
        const inputs = new Set(containersOf(value).map(([, container]) => container));
        for (const [path, container] of containersOf(result)) {
          expect(inputs.has(container), `${path} 是输入自己的对象：复制它 / ${path} is the input's own object: copy it`).toBe(false);
        }
      }),
    );
  });
});

// ── deep nesting ──────────────────────────────────────────────────────────────────────────────────

describe("05.1 freezeJson：最多 MAX_JSON_DEPTH 层嵌套 / at most MAX_JSON_DEPTH levels of nesting", () => {
  const kinds = [
    ["数组", "array"],
    ["对象", "object"],
  ] as const;

  test.each(kinds)(
    "嵌套 MAX_JSON_DEPTH 层（%s）照常接受、复制并冻结 / MAX_JSON_DEPTH nested levels (%ss) are accepted, copied and frozen",
    (kindZh, kind) => {
      const input = nested(MAX_JSON_DEPTH, "bottom", kind);
      const copy = freezeDeep(input);
      let level: unknown = copy;
      for (let i = 0; i < MAX_JSON_DEPTH; i++) {
        if (typeof level !== "object" || level === null) return expect.fail(`第 ${i} 层必须是${kindZh} / level ${i} must be an ${kind}`);
        if (!Object.isFrozen(level)) return expect.fail(`第 ${i} 层没有冻结 / level ${i} is not frozen`);
        level = kind === "array" ? (level as readonly unknown[])[0] : (level as { next: unknown }).next;
      }
      expect(level).toBe("bottom");
      expect(JSON.stringify(copy) === JSON.stringify(input), "副本写出来必须和输入一样 / the copy must write out as the input does").toBe(
        true,
      );
    },
  );

  test.each(kinds)(
    "多一层就是 JsonValueError：路径指向最里面的%s，reason 写出上限 / one level more is a JsonValueError at the innermost %s, naming the limit",
    (_, kind) => {
      const rejection = rejectionOf(nested(MAX_JSON_DEPTH + 1, "bottom", kind));
      const step = kind === "array" ? "[0]" : ".next";
      expect(
        rejection.path === `$${step.repeat(MAX_JSON_DEPTH)}`,
        `路径指向第 ${MAX_JSON_DEPTH + 1} 层的容器 / the path is the container at level ${MAX_JSON_DEPTH + 1}`,
      ).toBe(true);
      expect(
        rejection.reason.replaceAll(",", ""),
        `reason 要写出上限，例如 \`deeper than ${MAX_JSON_DEPTH} levels\` / the reason names the limit, e.g. \`deeper than ${MAX_JSON_DEPTH} levels\``,
      ).toContain(String(MAX_JSON_DEPTH));
    },
  );

  test("深度只数容器：最底下的字符串或数字不算一层 / depth counts containers only: a string or number at the bottom adds no level", () => {
    // Compared as JSON text: a failing diff of 500 levels would help nobody.
    expect(JSON.stringify(freezeDeep(nested(MAX_JSON_DEPTH, 42))) === JSON.stringify(nested(MAX_JSON_DEPTH, 42))).toBe(true);
    expect(JSON.stringify(freezeDeep(nested(MAX_JSON_DEPTH - 1, {}))) === JSON.stringify(nested(MAX_JSON_DEPTH - 1, {}))).toBe(true);
    expect(rejectionOf(nested(MAX_JSON_DEPTH, [])).path === `$${"[0]".repeat(MAX_JSON_DEPTH)}`).toBe(true);
  });

  test("10 万层也是同样的 JsonValueError，绝不是 RangeError（栈溢出） / 100,000 levels are the same JsonValueError, never a RangeError (stack overflow)", () => {
    const rejection = thrownAs(
      JsonValueError,
      () => freezeJson(nested(100_000, null)),
      "到 MAX_JSON_DEPTH 就停：先检查深度，再往下一层 / stop at MAX_JSON_DEPTH: check the depth before going one level deeper",
    );
    expect(
      rejection.path === `$${"[0]".repeat(MAX_JSON_DEPTH)}`,
      `路径是 $ 后面跟 ${MAX_JSON_DEPTH} 个 [0] / the path is $ and ${MAX_JSON_DEPTH} times [0]`,
    ).toBe(true);
  });

  test("很深处的循环是 JsonValueError，带着完整的路径 / a cycle deep down is a JsonValueError with the whole path", () => {
    const depth = MAX_JSON_DEPTH - 10;
    const top: { next?: unknown } = {};
    let bottom = top;
    for (let i = 1; i < depth; i++) {
      const next = {};
      bottom.next = next;
      bottom = next;
    }
    bottom.next = top;
    const rejection = rejectionOf(top);
    // Compared as a boolean: a failing diff of two long strings would help nobody.
    expect(
      rejection.path === `$${".next".repeat(depth)}`,
      `路径必须是 "$.next.next…"（${depth} 个 .next） / the path must be "$.next.next…" (${depth} times)`,
    ).toBe(true);
    expect(rejection.reason).toMatch(/circular|cycle/i);
  });

  test("共享的对象在它出现的每个深度都要算：一处远在上限以内，另一处已经超过 / a shared object is counted at every depth it appears: deep below the limit in one place, past it in another", () => {
    const shared = nested(10, 0);
    const input = { shallow: shared, deep: nested(MAX_JSON_DEPTH - 5, shared) };
    const rejection = rejectionOf(input);
    expect(
      rejection.path.startsWith("$.deep"),
      "`deep` 的副本会太深，虽然 `shallow` 没问题 / the copy of `deep` would be too deep, even though `shallow` was fine",
    ).toBe(true);
  });
});

// ── what it rejects, and where ────────────────────────────────────────────────────────────────────

class Point {
  constructor(readonly x: number) {}
}

function selfContaining(): unknown {
  const value: { self?: unknown } = {};
  value.self = value;
  return value;
}

function arrayContainingItself(): unknown {
  const value: unknown[] = [1];
  value.push(value);
  return value;
}

function cycleThroughAnArray(): unknown {
  const value: { a: { list: unknown[] } } = { a: { list: [0] } };
  value.a.list.push(value);
  return value;
}

function lengthPastTheItems(): unknown {
  const value = [1, 2];
  value.length = 4;
  return value;
}

// What (in Chinese, in English), where, and a word the reason must use (for the last few, any reason: the path says it all).
const rejections: [string, string, () => unknown, string, RegExp][] = [
  // cycles
  ["包含自己的对象", "an object that contains itself", selfContaining, "$.self", /circular|cycle/i],
  ["包含自己的数组", "an array that contains itself", arrayContainingItself, "$[1]", /circular|cycle/i],
  ["经过对象和数组的循环", "a cycle through an object and an array", cycleThroughAnArray, "$.a.list[1]", /circular|cycle/i],
  // numbers JSON cannot carry, or cannot carry back unchanged
  ["NaN", "NaN", () => ({ a: [0, { b: Number.NaN }] }), "$.a[1].b", /NaN/],
  ["Infinity", "Infinity", () => ({ x: Number.POSITIVE_INFINITY }), "$.x", /Infinity/],
  ["-Infinity", "-Infinity", () => [Number.NEGATIVE_INFINITY], "$[0]", /-Infinity/],
  ["-0", "-0", () => ({ n: -0 }), "$.n", /-0|negative zero/i],
  ["最外层的 -0", "-0 at the top", () => -0, "$", /-0|negative zero/i],
  ["2^53（不安全的整数）", "2^53 (an unsafe integer)", () => ({ big: 2 ** 53 }), "$.big", /safe/i],
  ["-(2^53)（不安全的整数）", "-(2^53) (an unsafe integer)", () => [[-(2 ** 53)]], "$[0][0]", /safe/i],
  ["1e300（远在安全范围之外的整数）", "1e300 (an integer far outside the safe range)", () => ({ huge: 1e300 }), "$.huge", /safe/i],
  // values that are not JSON at all
  ["作为属性值的 undefined", "undefined as a property", () => ({ a: undefined }), "$.a", /undefined/],
  ["数组里的 undefined", "undefined in an array", () => [1, undefined], "$[1]", /undefined/],
  ["最外层的 undefined", "undefined at the top", () => undefined, "$", /undefined/],
  ["函数", "a function", () => ({ f: () => 1 }), "$.f", /function/i],
  ["symbol", "a symbol", () => ({ s: Symbol("s") }), "$.s", /symbol/i],
  ["bigint", "a bigint", () => ({ n: 10n }), "$.n", /bigint/i],
  // objects that are not plain (a plain object's prototype is Object.prototype or null)
  ["Date", "a Date", () => ({ v: new Date(0) }), "$.v", /Date/],
  ["Map", "a Map", () => ({ v: new Map([["a", 1]]) }), "$.v", /Map/],
  ["Set", "a Set", () => ({ v: new Set([1]) }), "$.v", /Set/],
  ["RegExp", "a RegExp", () => ({ v: /x/ }), "$.v", /RegExp/],
  ["类的实例", "a class instance", () => ({ v: new Point(1) }), "$.v", /Point/],
  ["typed array", "a typed array", () => ({ v: new Uint8Array([1, 2]) }), "$.v", /Uint8Array/],
  ["ArrayBuffer", "an ArrayBuffer", () => ({ v: new ArrayBuffer(2) }), "$.v", /ArrayBuffer/],
  ["包装过的数字（new Number）", "a boxed number", () => ({ v: new Number(1) }), "$.v", /Number/],
  ["包装过的字符串（new String）", "a boxed string", () => ({ v: new String("s") }), "$.v", /String/],
  ["包装过的布尔值（new Boolean）", "a boxed boolean", () => ({ v: new Boolean(false) }), "$.v", /Boolean/],
  ["Promise", "a Promise", () => ({ v: Promise.resolve(1) }), "$.v", /Promise/],
  ["Error", "an Error", () => ({ v: new Error("boom") }), "$.v", /Error/],
  [
    "原型是另一个对象的对象",
    "an object whose prototype is another object",
    () => ({ v: Object.create({ inherited: 1 }) as object }),
    "$.v",
    /prototype/i,
  ],
  ["Array 子类的实例", "an instance of an Array subclass", () => ({ v: new (class Row extends Array<number> {})() }), "$.v", /Row/],
  // arrays must be dense, with nothing but their items
  ["稀疏数组里的空洞", "a hole in a sparse array", () => ({ list: [1, , 3] }), "$.list[1]", /hole|sparse/i],
  ["new Array(3)（只有空洞）", "new Array(3) (holes only)", () => new Array(3), "$[0]", /hole|sparse/i],
  ["元素后面的空洞（length 设得比元素多）", "holes after the items (length set past them)", lengthPastTheItems, "$[2]", /hole|sparse/i],
  [
    "带额外命名属性的数组",
    "an array with an extra named property",
    () => ({ rows: Object.assign([1, 2], { note: "x" }) }),
    "$.rows.note",
    /extra|not an index/i,
  ],
  [
    "带一个像数字的额外键的数组",
    "an array with an extra key that looks like a number",
    () => Object.assign([1], { "-1": 0 }),
    '$["-1"]',
    /extra|not an index/i,
  ],
  // keys and properties
  [
    "symbol 键（路径指向带着它的对象）",
    "a symbol key (the path is the object holding it)",
    () => ({ meta: { [Symbol("id")]: 1 } }),
    "$.meta",
    /symbol/i,
  ],
  [
    "getter",
    "a getter",
    () => ({
      a: {
        get b() {
          return 1;
        },
      },
    }),
    "$.a.b",
    /getter|accessor/i,
  ],
  ["只有 setter、没有 getter", "a setter without a getter", () => ({ set c(_: number) {} }), "$.c", /setter|accessor/i],
  [
    "数组元素上的 getter",
    "a getter on an array item",
    () => [Object.defineProperty([0], 0, { get: () => 1, enumerable: true })],
    "$[0][0]",
    /getter|accessor/i,
  ],
  [
    "不可枚举的属性（JSON.stringify 会丢掉它）",
    "a non-enumerable property (JSON.stringify would drop it)",
    () => Object.defineProperty({}, "hidden", { value: 1 }),
    "$.hidden",
    /enumerable/i,
  ],
  // the path's spelling
  [
    "不是标识符的键下面的坏值",
    "a bad value under keys that are not identifiers",
    () => ({ "weird key": { "0": { "a-b": [{ "": Number.NaN }] } } }),
    '$["weird key"]["0"]["a-b"][0][""]',
    /NaN/,
  ],
  [
    "带 _ 和 $ 的标识符键下面的坏值",
    "a bad value under identifier keys with _ and $",
    () => ({ _a: { $b: { c1: Number.NaN } } }),
    "$._a.$b.c1",
    /NaN/,
  ],
  ["带引号的键下面的坏值", "a bad value under a key with quotes in it", () => ({ 'say "hi"': Number.NaN }), '$["say \\"hi\\""]', /NaN/],
  ["非 ASCII 键下面的坏值", "a bad value under a non-ASCII key", () => ({ 名字: Number.NaN }), '$["名字"]', /NaN/],
];

describe("05.1 freezeJson：拒绝什么，在哪里 / what it rejects, and where", () => {
  test.each(rejections)(
    "%s：被拒绝，带着路径和说明问题的 reason / rejects %s with its path, and a reason that says what is wrong",
    (_zh, _en, make, path, reason) => {
      const rejection = rejectionOf(make());
      expect(rejection.path).toBe(path);
      expect(
        rejection.reason,
        `reason 必须说出那里是什么（匹配 ${reason}） / the reason must name what was found there (matching ${reason})`,
      ).toMatch(reason);
    },
  );

  test("getter 被拒绝，而且没有被调用 / a getter is rejected without being called", () => {
    let calls = 0;
    const input = {
      a: {
        get b() {
          calls++;
          return 1;
        },
      },
    };
    expect(rejectionOf(input).path).toBe("$.a.b");
    expect(
      calls,
      "读属性描述符，不要读值：调用 getter 会运行调用方的代码 / read property descriptors, not values: calling a getter runs the caller's code",
    ).toBe(0);
  });

  // The property: a bad value put at a random spot inside random JSON is reported at that spot.

  /** One step down from a container: an object key (with other keys beside it) or an array index. */
  type Step =
    | { readonly key: string; readonly siblings: Readonly<Record<string, unknown>> }
    | { readonly before: readonly unknown[]; readonly after: readonly unknown[] };

  const stepArb: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ key: fc.string(), siblings: fc.dictionary(fc.string(), jsonArb, { maxKeys: 3 }) }),
    fc.record({ before: fc.array(jsonArb, { maxLength: 3 }), after: fc.array(jsonArb, { maxLength: 3 }) }),
  );

  /** A bad value, made fresh; `under` is where its path continues inside it (for a hole, a getter…). */
  interface Bad {
    readonly whatZh: string;
    readonly what: string;
    readonly make: (ancestors: readonly object[], pick: number) => unknown;
    readonly under: string;
    readonly reason: RegExp;
  }
  const bad = (whatZh: string, what: string, make: Bad["make"], under: string, reason: RegExp): Bad => ({
    whatZh,
    what,
    make,
    under,
    reason,
  });
  const bads: Bad[] = [
    bad("循环引用", "a cycle", (ancestors, pick) => ancestors[pick % ancestors.length], "", /circular|cycle/i),
    bad("NaN", "NaN", () => Number.NaN, "", /NaN/),
    bad("Infinity", "Infinity", () => Number.POSITIVE_INFINITY, "", /Infinity/),
    bad("-Infinity", "-Infinity", () => Number.NEGATIVE_INFINITY, "", /-Infinity/),
    bad("-0", "-0", () => -0, "", /-0|negative zero/i),
    bad("2^53", "2^53", () => 2 ** 53, "", /safe/i),
    bad("-(2^53)", "-(2^53)", () => -(2 ** 53), "", /safe/i),
    bad("1e300", "1e300", () => 1e300, "", /safe/i),
    bad("undefined", "undefined", () => undefined, "", /undefined/),
    bad("函数", "a function", () => () => 1, "", /function/i),
    bad("symbol", "a symbol", () => Symbol("s"), "", /symbol/i),
    bad("bigint", "a bigint", () => 1n, "", /bigint/i),
    bad("Date", "a Date", () => new Date(0), "", /Date/),
    bad("Map", "a Map", () => new Map(), "", /Map/),
    bad("类的实例", "a class instance", () => new Point(1), "", /Point/),
    bad("typed array", "a typed array", () => new Uint8Array(1), "", /Uint8Array/),
    bad("包装过的数字", "a boxed number", () => new Number(1), "", /Number/),
    bad("稀疏数组", "a sparse array", () => [1, , 3], "[1]", /hole|sparse/i),
    bad("带额外属性的数组", "an array with an extra property", () => Object.assign([1], { note: "x" }), ".note", /extra|not an index/i),
    bad("symbol 键", "a symbol key", () => ({ [Symbol("id")]: 1 }), "", /symbol/i),
    bad(
      "getter",
      "a getter",
      () => ({
        get g() {
          return 1;
        },
      }),
      ".g",
      /getter|accessor/i,
    ),
  ];

  /** Builds the containers top-down (so a cycle can point back up), puts the bad value at the end. */
  function place(steps: readonly Step[], badValue: Bad, pick: number): { value: unknown; path: string } {
    const containers = steps.map((step): object => ("key" in step ? { ...step.siblings } : [...step.before, null, ...step.after]));
    const keys = steps.map((step) => ("key" in step ? step.key : step.before.length));
    const children = [...containers.slice(1), badValue.make(containers, pick)];
    containers.forEach((container, i) => {
      Object.defineProperty(container, keys[i]!, {
        value: children[i],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    });
    return { value: containers.length > 0 ? containers[0] : children[0], path: pathFrom(keys) + badValue.under };
  }

  test("任何位置的坏值都被拒绝，路径指向它 / a bad value anywhere is rejected with the path to it", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 5 }), fc.constantFrom(...bads), fc.nat(), (steps, badValue, pick) => {
        fc.pre(badValue.what !== "a cycle" || steps.length > 0); // a cycle needs a container above it
        const { value, path } = place(steps, badValue, pick);
        const rejection = rejectionOf(value);
        expect(rejection.path, `${badValue.whatZh}，放在 ${path} / ${badValue.what} placed at ${path}`).toBe(path);
        expect(rejection.reason, `${badValue.whatZh} 的 reason 必须说出它 / the reason for ${badValue.what} must say so`).toMatch(
          badValue.reason,
        );
      }),
    );
  });
});

// ── code that runs while reading ──────────────────────────────────────────────────────────────────

describe("05.1 freezeJson：读取 Proxy 时会运行调用方的代码，它抛出的错误变成 JsonValueError / a Proxy runs the caller's code while it is read; its errors become JsonValueErrors", () => {
  const boom = new Error("a trap threw");
  const throwingTrap = (trap: "getPrototypeOf" | "ownKeys" | "getOwnPropertyDescriptor"): object =>
    new Proxy(
      { a: 1 },
      {
        [trap]: () => {
          throw boom;
        },
      },
    );

  test("get trap 谎报 length 的数组 Proxy，按它的属性描述符复制 / an array Proxy whose get trap lies about its length is copied as its descriptors say", () => {
    const liar = new Proxy([1, 2], {
      get: (target, key, receiver) => (key === "length" ? 5 : Reflect.get(target, key, receiver)),
    });
    expect(
      freezeJson({ list: liar }),
      '从 Object.getOwnPropertyDescriptor(value, "length") 读 length：`value.length` 问的是 Proxy 的 get trap / read the length from Object.getOwnPropertyDescriptor(value, "length"): `value.length` asks the Proxy\'s get trap',
    ).toEqual({ list: [1, 2] });
  });

  test("从不调用 Proxy 的 get trap：每个值都从属性描述符读 / a Proxy's get trap is never called: every value comes from a property descriptor", () => {
    let gets = 0;
    const counting = new Proxy(
      { a: [1], b: "x" },
      {
        get: (target, key, receiver) => {
          gets++;
          return Reflect.get(target, key, receiver);
        },
      },
    );
    expect(freezeJson(counting)).toEqual({ a: [1], b: "x" });
    expect(gets, "读描述符，不要读值：get 会运行调用方的代码 / read descriptors, not values: a get runs the caller's code").toBe(0);
  });

  test.each(["getPrototypeOf", "ownKeys"] as const)(
    "$0 trap 抛错的 Proxy：在 Proxy 的路径上抛 JsonValueError，trap 的错误作为 cause / a Proxy whose $0 trap throws is a JsonValueError at the Proxy's path, with the trap's error as its cause",
    (trap) => {
      const rejection = rejectionOf({ inner: [throwingTrap(trap)] });
      expect(rejection.path).toBe("$.inner[0]");
      expect(
        rejection.cause,
        "留住抛出的错误：new JsonValueError(path, reason, { cause: error }) / keep what was thrown: new JsonValueError(path, reason, { cause: error })",
      ).toBe(boom);
    },
  );

  test("getOwnPropertyDescriptor trap 抛错的 Proxy：在 Proxy 或那个属性的路径上抛 JsonValueError / a Proxy whose getOwnPropertyDescriptor trap throws is a JsonValueError at the Proxy or at the property", () => {
    const rejection = rejectionOf({ inner: [throwingTrap("getOwnPropertyDescriptor")] });
    expect(["$.inner[0]", "$.inner[0].a"]).toContain(rejection.path);
    expect(
      rejection.cause,
      "留住抛出的错误：new JsonValueError(path, reason, { cause: error }) / keep what was thrown: new JsonValueError(path, reason, { cause: error })",
    ).toBe(boom);
  });

  test("已撤销的 Proxy（对它的每个操作都抛 TypeError）：在它的路径上抛 JsonValueError / a revoked Proxy (every operation on it throws a TypeError) is a JsonValueError at its path", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const rejection = rejectionOf({ gone: proxy });
    expect(rejection.path).toBe("$.gone");
    expect(rejection.cause, "把那个 TypeError 留作 cause / keep the TypeError as the cause").toBeInstanceOf(TypeError);
  });
});

// ── the property: anything at all ─────────────────────────────────────────────────────────────────

describe("05.1 属性测试：任何值要么得到日志写得出、读得回的副本，要么是 JsonValueError / property: for any value, a copy the log can write and read back, or a JsonValueError", () => {
  const anythingArb = fc.anything({
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withSparseArray: true,
    withTypedArray: true,
  });
  // Around the limit, and far past it: 5,000 levels is where JSON.stringify itself overflows. Drawn as
  // a description and built inside the test, so a failing case prints as three fields, not 5,000 brackets.
  const deepArb = fc.record({
    levels: fc.constantFrom(MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 5_000),
    kind: fc.constantFrom("array", "object" as const),
    bottom: jsonArb,
  });
  const caseArb = fc.oneof(
    { arbitrary: anythingArb.map((value) => ({ value })), weight: 4 },
    { arbitrary: jsonArb.map((value) => ({ value })), weight: 2 },
    { arbitrary: deepArb, weight: 1 },
  );

  test("要么是深度冻结的副本，JSON.stringify 写得出、JSON.parse 读回来相等，要么是 JsonValueError / either a deep-frozen copy that JSON.stringify writes and JSON.parse reads back equal, or a JsonValueError", () => {
    fc.assert(
      fc.property(caseArb, (drawn) => {
        const value = "value" in drawn ? drawn.value : nested(drawn.levels, drawn.bottom, drawn.kind);
        let copy: JsonValue;
        try {
          copy = freezeJson(value);
        } catch (error) {
          caughtAs(
            JsonValueError,
            error,
            "freezeJson 复制不了的值一律是 JsonValueError，绝不是别的错误 / anything freezeJson cannot copy must be a JsonValueError, never another error",
          );
          return;
        }
        expectDeepFrozen(copy);
        let text: string;
        try {
          text = JSON.stringify(copy);
        } catch (error) {
          throw new Error(
            `freezeJson 接受了 JSON.stringify 写不出的值（${String(error)}）：MAX_JSON_DEPTH 的上限生效了吗？ / ` +
              `freezeJson accepted a value JSON.stringify cannot write (${String(error)}): is MAX_JSON_DEPTH enforced?`,
            { cause: error },
          );
        }
        expect(JSON.parse(text), "接受了的值必须读回相等 / what was accepted must read back equal").toEqual(copy);
      }),
      { numRuns: 300 },
    );
  });
});
