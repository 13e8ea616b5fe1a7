import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CalculatorError, calculator, evaluateExpression, formatNumber } from "./calculator.ts";
import { runToolCall, type Tool } from "./tools.ts";

describe("evaluateExpression: arithmetic", () => {
  it("* and / bind tighter than + and -", () => {
    expect(evaluateExpression("1+2*3")).toBe(7);
    expect(evaluateExpression("10-6/2")).toBe(7);
  });

  it("operators of equal precedence associate to the left", () => {
    expect(evaluateExpression("8-3-2")).toBe(3);
    expect(evaluateExpression("8/4/2")).toBe(1);
    expect(evaluateExpression("2*6/3")).toBe(4);
  });

  it("parentheses override precedence and may be nested", () => {
    expect(evaluateExpression("(1+2)*3")).toBe(9);
    expect(evaluateExpression("8-(3-2)")).toBe(7);
    expect(evaluateExpression("((2))")).toBe(2);
  });

  it.each([
    ["-(2+3)", -5],
    ["--2", 2],
    ["2*-3", -6],
    ["-2*3", -6],
    ["1--1", 2],
    ["+5", 5],
  ])("a leading sign negates or keeps what follows: %s = %d", (expression, expected) => {
    expect(evaluateExpression(expression)).toBe(expected);
  });

  it("numbers may be decimals, with or without a digit before the point", () => {
    expect(evaluateExpression("3.5+.5")).toBe(4);
    expect(evaluateExpression(".25*4"), "more than one digit after a bare point").toBe(1);
    expect(evaluateExpression("3.")).toBe(3);
    expect(evaluateExpression("0.25*4")).toBe(1);
    expect(evaluateExpression("0.1+0.2")).toBeCloseTo(0.3);
  });

  it("whitespace between and around tokens is ignored", () => {
    expect(evaluateExpression("  1 +\t2 *\n3  ")).toBe(7);
  });
});

describe("evaluateExpression: rejected input", () => {
  it("errors are CalculatorErrors by name too, so a log line says which error it was", () => {
    expect(() => evaluateExpression("1/0")).toThrow(expect.objectContaining({ name: "CalculatorError" }));
  });

  it("dividing by zero is an error, even when the zero is computed", () => {
    expect(() => evaluateExpression("1/0")).toThrow(CalculatorError);
    expect(() => evaluateExpression("1/0")).toThrow(/^division by zero at position 1$/);
    expect(() => evaluateExpression("4/(2-2)")).toThrow(/^division by zero at position 1$/);
  });

  it("a character outside the grammar is named with its position", () => {
    expect(() => evaluateExpression("2 + x")).toThrow(CalculatorError);
    expect(() => evaluateExpression("2 + x")).toThrow(/^unexpected character "x" at position 4$/);
    expect(() => evaluateExpression("2^3")).toThrow(/^unexpected character "\^" at position 1$/);
  });

  it.each(["", "   ", "\t\n"])("empty or whitespace-only input is an empty expression: %j", (expression) => {
    expect(() => evaluateExpression(expression)).toThrow(CalculatorError);
    expect(() => evaluateExpression(expression)).toThrow(/^empty expression$/);
  });

  it("an operator with nothing after it is an unexpected end", () => {
    expect(() => evaluateExpression("1+")).toThrow(CalculatorError);
    expect(() => evaluateExpression("1+")).toThrow(/^unexpected end of expression$/);
    expect(() => evaluateExpression("2*-")).toThrow(/^unexpected end of expression$/);
  });

  it("a token where a number belongs is named with its position", () => {
    expect(() => evaluateExpression("*2")).toThrow(/^unexpected "\*" at position 0$/);
    expect(() => evaluateExpression("1*/2")).toThrow(/^unexpected "\/" at position 2$/);
    expect(() => evaluateExpression("1 2")).toThrow(/^unexpected "2" at position 2$/);
    expect(() => evaluateExpression("()")).toThrow(/^unexpected "\)" at position 1$/);
  });

  it("an unclosed parenthesis is reported at the opening one", () => {
    expect(() => evaluateExpression("(1+2")).toThrow(CalculatorError);
    expect(() => evaluateExpression("(1+2")).toThrow(/^unbalanced parenthesis at position 0$/);
    expect(() => evaluateExpression("2*((1)")).toThrow(/^unbalanced parenthesis at position 2$/);
  });

  it("a second number inside a parenthesis, where ) belongs, is named with its position", () => {
    expect(() => evaluateExpression("(1 2")).toThrow(/^unexpected "2" at position 3$/);
  });

  it("a closing parenthesis with no opening one is reported where it stands", () => {
    expect(() => evaluateExpression("1+2)")).toThrow(CalculatorError);
    expect(() => evaluateExpression("1+2)")).toThrow(/^unbalanced parenthesis at position 3$/);
  });

  it("a result too large to be a finite number is an error, not Infinity", () => {
    const huge = "9".repeat(300); // about 1e300; squared it overflows
    expect(() => evaluateExpression(`${huge}*${huge}`)).toThrow(CalculatorError);
    expect(() => evaluateExpression(`${huge}*${huge}`)).toThrow(/^result of "\*" at position 300 is too large$/);
    expect(() => evaluateExpression("9".repeat(400))).toThrow(/^number at position 0 is too large$/);
  });
});

describe("evaluateExpression: limits on hostile input", () => {
  it("200 levels of nesting are allowed", () => {
    expect(evaluateExpression(`${"(".repeat(200)}1${")".repeat(200)}`)).toBe(1);
    expect(evaluateExpression(`${"-".repeat(200)}1`)).toBe(1);
  });

  it("depth counts nesting, not groups: 300 parenthesized groups side by side are fine", () => {
    expect(evaluateExpression(Array.from({ length: 300 }, () => "(1)").join("+"))).toBe(300);
    expect(evaluateExpression(Array.from({ length: 300 }, () => "-1").join("*"))).toBe(1);
  });

  it("the 201st level of nesting is an error at its position", () => {
    expect(() => evaluateExpression(`${"(".repeat(201)}1${")".repeat(201)}`)).toThrow(
      /^expression nests deeper than 200 levels at position 200$/,
    );
  });

  it("10,000 nested parentheses are a CalculatorError, not a stack overflow", () => {
    const opens = "(".repeat(10_000);
    expect(() => evaluateExpression(opens)).toThrow(CalculatorError);
    expect(() => evaluateExpression(opens)).toThrow(/^expression nests deeper than 200 levels/);
    // Balanced and within the length limit, so only the depth limit can stop it.
    const balanced = `${"(".repeat(4_000)}1${")".repeat(4_000)}`;
    expect(() => evaluateExpression(balanced)).toThrow(/^expression nests deeper than 200 levels/);
  });

  it("10,000 unary minuses are a CalculatorError, not a stack overflow", () => {
    expect(() => evaluateExpression("-".repeat(10_000))).toThrow(CalculatorError);
    expect(() => evaluateExpression(`${"-".repeat(9_999)}1`)).toThrow(/^expression nests deeper than 200 levels/);
  });

  it("input longer than 10,000 characters is refused before parsing", () => {
    const atLimit = `${"1+".repeat(4_999)}11`;
    expect(atLimit).toHaveLength(10_000);
    expect(evaluateExpression(atLimit)).toBe(4_999 + 11);
    expect(() => evaluateExpression(`${atLimit} `)).toThrow(CalculatorError);
    expect(() => evaluateExpression(`${atLimit} `)).toThrow(/^expression is longer than 10000 characters$/);
  });
});

describe("evaluateExpression: properties", () => {
  const small = fc.integer({ min: -1_000, max: 1_000 });

  it("a+b*c is evaluated as a+(b*c)", () => {
    fc.assert(
      fc.property(small, small, small, (a, b, c) => {
        expect(evaluateExpression(`${a}+${b}*${c}`)).toBe(a + b * c);
      }),
    );
  });

  // Mostly calculator characters so that inputs get deep into the parser, plus arbitrary ones.
  const calculatorChar = fc.constantFrom(..."0123456789.+-*/() ");
  const anyChar = fc.string({ unit: "binary", minLength: 1, maxLength: 1 });
  const input = fc.string({ unit: fc.oneof(calculatorChar, anyChar), maxLength: 40 });

  it("any input either evaluates to a finite number or throws CalculatorError", () => {
    fc.assert(
      fc.property(input, (expression) => {
        let result: number;
        try {
          result = evaluateExpression(expression);
        } catch (error) {
          expect(error).toBeInstanceOf(CalculatorError);
          return;
        }
        expect(Number.isFinite(result)).toBe(true);
      }),
    );
  });
});

describe("formatNumber", () => {
  it("whole numbers show without a trailing .0", () => {
    expect(formatNumber(7)).toBe("7");
    expect(formatNumber(-12)).toBe("-12");
  });

  it("fractions show as JavaScript prints them", () => {
    expect(formatNumber(0.5)).toBe("0.5");
  });

  it("negative zero shows as 0", () => {
    expect(formatNumber(-0)).toBe("0");
    expect(formatNumber(evaluateExpression("-0"))).toBe("0");
  });
});

describe("calculator tool", () => {
  it("is named calculator and takes an expression string", () => {
    expect(calculator.name).toBe("calculator");
    expect(calculator.schema.safeParse({ expression: "1" }).success).toBe(true);
    expect(calculator.schema.safeParse({}).success).toBe(false);
    expect(calculator.schema.safeParse({ expression: 1 }).success).toBe(false);
  });

  it("executes arguments that passed the schema and returns the formatted result", async () => {
    const args = calculator.schema.parse({ expression: "1+2*3" });
    expect(await calculator.execute(args)).toBe("7");
  });

  it("lets evaluation errors propagate out of execute", () => {
    expect(() => calculator.execute({ expression: "1/0" })).toThrow(CalculatorError);
  });

  it("an error becomes an error result the model can read when run as a tool call", async () => {
    const tools = new Map<string, Tool>([["calculator", calculator]]);
    const call = { id: "call_1", name: "calculator", arguments: JSON.stringify({ expression: "2 + x" }) };
    expect(await runToolCall(tools, call)).toEqual({
      content: 'Error: calculator failed: unexpected character "x" at position 4',
      is_error: true,
    });
  });
});
