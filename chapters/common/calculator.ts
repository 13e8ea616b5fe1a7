// The calculator tool: a tokenizer plus a recursive-descent parser that evaluates as it parses,
// one function per grammar rule (never eval — the expression comes from the model):
//   expression = term { ("+" | "-") term }        lowest precedence, left-associative
//   term       = unary { ("*" | "/") unary }
//   unary      = ("+" | "-") unary | "(" expression ")" | number
import { z } from "zod";
import { defineTool } from "./tools.ts";

/** Every way an expression can be rejected; the message is what the model gets to read. */
export class CalculatorError extends Error {
  override readonly name = "CalculatorError";
}

// Limits keep hostile input from overflowing the call stack or burning time; 200 levels is far
// more than any real calculation needs and far less than the JavaScript stack can take.
const MAX_LENGTH = 10_000;
const MAX_DEPTH = 200;

// Positions in messages are 0-based offsets into the expression, as JavaScript strings index.
type Operator = "+" | "-" | "*" | "/";
type OperatorToken = { readonly kind: "operator"; readonly text: Operator; readonly position: number };
type Token =
  | { readonly kind: "number"; readonly value: number; readonly text: string; readonly position: number }
  | OperatorToken
  | { readonly kind: "paren"; readonly text: "(" | ")"; readonly position: number }
  | { readonly kind: "end"; readonly text: ""; readonly position: number };

export function evaluateExpression(expression: string): number {
  if (expression.length > MAX_LENGTH) {
    throw new CalculatorError(`expression is longer than ${MAX_LENGTH} characters`);
  }
  const tokens = tokenize(expression);
  if (tokens.length === 0) throw new CalculatorError("empty expression");
  return new Parser(tokens, expression.length).parseWhole();
}

// Sticky (`y`) so the match must start exactly at lastIndex. Accepts "3", "3.5", ".5" and "3.".
const NUMBER = /\d+(?:\.\d*)?|\.\d+/y;

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  while (position < expression.length) {
    const char = expression[position] ?? "";
    if (/\s/.test(char)) {
      position += 1;
    } else if (char === "+" || char === "-" || char === "*" || char === "/") {
      tokens.push({ kind: "operator", text: char, position });
      position += 1;
    } else if (char === "(" || char === ")") {
      tokens.push({ kind: "paren", text: char, position });
      position += 1;
    } else {
      const text = matchNumber(expression, position);
      if (text === undefined) {
        throw new CalculatorError(`unexpected character "${char}" at position ${position}`);
      }
      const value = ensureFinite(Number(text), `number at position ${position} is too large`);
      tokens.push({ kind: "number", value, text, position });
      position += text.length;
    }
  }
  return tokens;
}

function matchNumber(expression: string, position: number): string | undefined {
  NUMBER.lastIndex = position;
  return NUMBER.exec(expression)?.[0];
}

// Without exponents the only way to leave the finite numbers is overflow (division by zero is
// caught separately), and Infinity would quietly poison every later step.
function ensureFinite(value: number, message: string): number {
  if (!Number.isFinite(value)) throw new CalculatorError(message);
  return value;
}

class Parser {
  private index = 0;
  private depth = 0;
  // Reading past the last token yields this, so "1+" fails as "unexpected end", not a crash.
  private readonly end: Token;

  constructor(
    private readonly tokens: readonly Token[],
    length: number,
  ) {
    this.end = { kind: "end", text: "", position: length };
  }

  parseWhole(): number {
    const value = this.expression();
    const leftover = this.peek();
    if (leftover.kind === "end") return value;
    // A value was complete, so a ")" here has no "(" to close.
    if (leftover.text === ")") throw new CalculatorError(`unbalanced parenthesis at position ${leftover.position}`);
    throw unexpected(leftover);
  }

  private expression(): number {
    let value = this.term();
    while (true) {
      const operator = this.takeOperator("+", "-");
      if (operator === undefined) return value;
      value = combine(value, operator, this.term());
    }
  }

  private term(): number {
    let value = this.unary();
    while (true) {
      const operator = this.takeOperator("*", "/");
      if (operator === undefined) return value;
      value = combine(value, operator, this.unary());
    }
  }

  private unary(): number {
    const token = this.advance();
    if (token.text === "-") return -this.nested(token, () => this.unary());
    if (token.text === "+") return this.nested(token, () => this.unary());
    if (token.text === "(") return this.nested(token, () => this.parenthesized(token));
    if (token.kind === "number") return token.value;
    throw unexpected(token);
  }

  private parenthesized(open: Token): number {
    const value = this.expression();
    const close = this.advance();
    if (close.text === ")") return value;
    if (close.kind === "end") throw new CalculatorError(`unbalanced parenthesis at position ${open.position}`);
    throw unexpected(close);
  }

  // Both unary signs and "(" recurse, so both count toward the depth limit; counting here, before
  // recursing, is what turns 10,000 nested "(" into a CalculatorError instead of a RangeError.
  private nested(token: Token, parse: () => number): number {
    if (this.depth >= MAX_DEPTH) {
      throw new CalculatorError(`expression nests deeper than ${MAX_DEPTH} levels at position ${token.position}`);
    }
    this.depth += 1;
    try {
      return parse();
    } finally {
      this.depth -= 1;
    }
  }

  /** Consumes the next token if it is one of `operators`. */
  private takeOperator(...operators: Operator[]): OperatorToken | undefined {
    const token = this.peek();
    if (token.kind !== "operator" || !operators.includes(token.text)) return undefined;
    this.index += 1;
    return token;
  }

  private peek(): Token {
    return this.tokens[this.index] ?? this.end;
  }

  private advance(): Token {
    const token = this.peek();
    this.index += 1;
    return token;
  }
}

function combine(left: number, operator: OperatorToken, right: number): number {
  const where = `at position ${operator.position}`;
  if (operator.text === "/" && right === 0) throw new CalculatorError(`division by zero ${where}`);
  const result = applyOperator(operator.text, left, right);
  return ensureFinite(result, `result of "${operator.text}" ${where} is too large`);
}

function applyOperator(operator: Operator, left: number, right: number): number {
  switch (operator) {
    case "+":
      return left + right;
    case "-":
      return left - right;
    case "*":
      return left * right;
    case "/":
      return left / right;
  }
}

function unexpected(token: Token): CalculatorError {
  if (token.kind === "end") return new CalculatorError("unexpected end of expression");
  return new CalculatorError(`unexpected "${token.text}" at position ${token.position}`);
}

// The book's Python shows 1+2*3 as "7.0" because it has a float type; JavaScript has one number type, so "7".
export function formatNumber(n: number): string {
  return String(n); // String(-0) is already "0", so a negative zero never reaches the model.
}

export const calculator = defineTool({
  name: "calculator",
  description: 'Evaluate an arithmetic expression with + - * / and parentheses, e.g. "1+2*3".',
  schema: z.object({ expression: z.string().describe("The arithmetic expression to evaluate") }),
  execute: ({ expression }) => formatNumber(evaluateExpression(expression)),
});
