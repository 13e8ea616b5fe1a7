// The step manifest: the workbook's steps and everything known about each one. Every tool reads
// this list and nothing else: the vitest projects (answers, stubs, decoys), the workbook checks,
// progress, watch, hint, compare, reset, test:chapter, and the guide's step table (generated from it:
// `npm run guide:table`; scripts/steps.test.ts checks it). Adding a step is one entry here plus its files:
//   exercises/05-session-log/<file>   the stub the learner edits (and <test>, its tests)
//   scripts/stubs/05-session-log/<file>  the same stub as shipped: what reset restores (npm run ship-stubs)
//   <answerDir>/<file>                the answer: the chapter for core and challenge steps
//   scripts/decoys/<name>.ts          each decoy: a plausible wrong answer its tests must reject
//   exercises/05-session-log/README.md  a section opening with <a id="step-05-N"></a> (guideAnchor)
// The order learners take the steps is the book's (core), the book's 练习 (practice), then the
// challenges past the book: `steps` is sorted so, whatever order the entries are written in.
import path from "node:path";
import { root } from "../chapters/common/root.ts";
import { guideAnchor, STEP_TITLES_ZH } from "../exercises/05-session-log/todo.ts";

export { root };
export const exercisesDir = path.join(root, "exercises/05-session-log");
export const chapterDir = path.join(root, "chapters/05-session-log");
export const solutionsDir = path.join(root, "solutions/05-session-log");
export const decoysDir = path.join(root, "scripts/decoys");
/** The stubs as the workbook ships them, never edited by a learner. */
export const shippedStubsDir = path.join(root, "scripts/stubs/05-session-log");
export const guideFile = path.join(exercisesDir, "README.md");

/** core: the book's sections; practice: the book's 练习 as code; challenge: past the book. */
export type StepKind = "core" | "practice" | "challenge";

export interface Step {
  /** What a learner types: `npm run hint -- 05.3`. */
  readonly id: string;
  readonly kind: StepKind;
  readonly title: string;
  readonly titleZh: string;
  /** The book section the step follows, as the glossary writes it: "5.4 节", "练习2". */
  readonly bookSection: string;
  /** The file the learner edits, inside exercises/05-session-log/. */
  readonly file: string;
  /** The step's test file, inside exercises/05-session-log/. */
  readonly test: string;
  /** The folder holding the answer: the chapter for the core steps, solutions/ for the book's 练习. */
  readonly answerDir: string;
  /**
   * Plausible wrong answers (scripts/decoys/<name>.ts) that at least one of the step's tests must fail.
   * A decoy stands in for the step's file, or for `replaces` when the mistake lives in another learner
   * file (05.6: the cache is right, but session.ts feeds it from the wrong place).
   */
  readonly decoys: readonly { readonly name: string; readonly mistake: string; readonly replaces?: string }[];
  /**
   * What `npm run hint` reveals, one more each time: 3–4 hints in Chinese, from a nudge (which rule,
   * which book section) to the shape of the code, never a line of the answer (scripts/hint.test.ts).
   */
  readonly hints: readonly string[];
  /** Earlier steps whose code this step's tests also run (see each test file's opening comment). */
  readonly needs: readonly string[];
  /**
   * Other learner files the step has the learner change besides its own (05.6 wires its cache into
   * session.ts), each with what goes there: `npm run reset` restores only `file`, and says what else
   * the step touched.
   */
  readonly alsoEdits?: readonly { readonly file: string; readonly whatZh: string; readonly what: string }[];
}

const entries: readonly Step[] = [
  {
    id: "05.1",
    kind: "core",
    title: "freezeJson: validate, copy and deep-freeze event data",
    titleZh: STEP_TITLES_ZH["05.1"],
    bookSection: "5.3 节第 1 点",
    file: "json.ts",
    test: "05.1-freeze-json.test.ts",
    answerDir: chapterDir,
    decoys: [
      {
        name: "json-shallow-freeze",
        mistake: "only the top level of the copy is frozen; nested objects and arrays stay writable",
      },
      { name: "json-accepts-negative-zero", mistake: "-0 is accepted, though JSON.stringify writes it as 0" },
      {
        name: "json-seen-set-cycles",
        mistake: "cycles are tracked with a set of every object ever seen, so a shared (non-cyclic) object is rejected",
      },
      { name: "json-freezes-input", mistake: "no copy: the caller's own objects are frozen in place and returned" },
      {
        name: "json-null-prototype-copy",
        mistake: "the copy's objects are made with Object.create(null), unlike the ordinary objects JSON.parse gives back",
      },
      {
        name: "json-no-depth-limit",
        mistake: "no depth limit: data nested 5,000 levels deep is accepted, and a log holding it cannot be written with JSON.stringify",
      },
      {
        name: "json-depth-off-by-one",
        mistake: "the depth check is off by one: a value exactly MAX_JSON_DEPTH levels deep is rejected",
      },
    ],
    hints: [
      "先列清楚接受什么（5.3 节第 1 点）：null、boolean、string、有限的 number、普通数组、普通对象" +
        "（原型是 Object.prototype 或 null）。其余一律抛 `JsonValueError(path, reason)`，path 从 `$` 写起，" +
        '例如 `$.a[2].b`，键不是标识符时写成 `$["weird key"]`。',
      "数字最容易漏：`NaN`、`±Infinity` 用 `Number.isFinite` 挡；`-0` 要用 `Object.is(value, -0)`，" +
        '`value === 0` 分不出来（而 `JSON.stringify(-0)` 是 "0"，读回来就变了）；整数超出 ' +
        "`Number.isSafeInteger` 的范围也拒绝。\n" +
        "循环引用 ≠ 共享引用：只记住“当前路径上的祖先”（进入容器时加入 Set，离开时删除）。" +
        "同一个对象出现在两个兄弟位置是合法的。",
      "每个属性只读一次：用 `Object.getOwnPropertyDescriptors(value)`。没有 `value` 字段的描述符是 " +
        "getter/setter → 拒绝，不要调用它；`enumerable: false` 也拒绝；`Object.getOwnPropertySymbols` " +
        "查符号键。数组要检查空洞（某个下标没有描述符）和下标以外的多余属性（`length` 除外），" +
        "长度也从描述符读：`value.length` 会去问 Proxy 的 get trap，它可以说谎。" +
        "`Date`、`Map`、类实例等靠 `Object.getPrototypeOf` 识别，reason 里写出构造函数的名字。副本一律是普通的 `{}` 或 `[]`（输入的原型是 null 也一样），" +
        '键用 `Object.defineProperty` 写进去，免得 JSON 里的 `"__proto__"` 键改掉副本的原型。\n' +
        "这些读取都可能运行调用方的代码（Proxy 的 trap）并抛错：把读取包进 `try/catch`，改抛 " +
        "`JsonValueError`，原来的错误放进第三个参数 `{ cause: error }`。",
      "递归就行，因为深度有上限 `MAX_JSON_DEPTH`（500 层）。它来自“存得下”：`JSON.stringify` 遇到冻结的数组，" +
        "在 Node 20 上约 2,200 层就栈溢出（调用栈已经用掉一部分时更少），而事件还在 data 外面多包两层（日志数组、事件对象）。" +
        "500 层递归只用掉默认调用栈的一小部分。\n" +
        "形状：一个内部函数，带着当前路径和 `ancestors`（当前路径上的容器，一个 Set）。原始值：检查后原样返回。" +
        "容器：先看它在不在 `ancestors` 里（循环），再看 `ancestors.size` 是否已经等于 `MAX_JSON_DEPTH`" +
        "（再深一层就超了：抛错，reason 里写出这个上限）；然后建空副本，把容器加入 `ancestors`，" +
        "逐个子节点递归并把结果写进副本，再把容器移出 `ancestors`，最后冻结副本返回——冻结因此是自底向上的。" +
        "同一个对象出现在两处就复制两次，深度按它每次出现的位置算。",
    ],
    needs: [],
  },
  {
    id: "05.2",
    kind: "core",
    title: "Session: append, events, subscribe",
    titleZh: STEP_TITLES_ZH["05.2"],
    bookSection: "5.2–5.3 节",
    file: "session.ts",
    test: "05.2-session.test.ts",
    answerDir: chapterDir,
    decoys: [
      { name: "session-snapshot-not-frozen", mistake: "events returns a fresh unfrozen copy on every read" },
      {
        name: "session-listener-error-escapes",
        mistake: "listeners are called bare: a throwing one escapes append and stops the others",
      },
      { name: "session-shallow-data", mistake: "event data is copied and frozen at the top level only" },
      {
        name: "session-nested-append-immediate",
        mistake: "an append made inside a listener is delivered at once, not queued",
      },
      {
        name: "session-listeners-by-function",
        mistake: "listeners are a Set of functions: the same function subscribed twice is one subscription",
      },
      {
        name: "session-late-subscriber-hears-queue",
        mistake: "queued events go to the listeners subscribed at delivery, so a listener subscribed mid-delivery hears an earlier append",
      },
    ],
    hints: [
      "`append(type, data)` 就是 5.3 节的三个动作，顺序不能乱：校验并冻结 → 提交并让快照失效 → 通知订阅者。" +
        "校验包括 `freezeJson(data)`（结果必须是 JSON 对象）和 `checkEventData(type, data, schemas)`" +
        "（来自 chapters/05-session-log/events.ts）。任何一步抛错都必须发生在提交之前：" +
        "被拒绝的 append 不能在日志里留下痕迹，也不能“用掉”一个 id。\n" +
        "schema 的事已经替你办好：内置 schema 是严格的（多一个键也是 `EventDataError`）；桩里给好的 " +
        "`this.#schemas` 把内置的放在最后合并，所以构造参数里的 schemas 只能新增类型，关不掉也换不掉内置的；" +
        '`checkEventData` 只认自己的键（`Object.hasOwn`），"constructor"、"__proto__" 这样的类型是普通的未知类型。' +
        "直接把 `this.#schemas` 传给它就行，别自己写 `schemas[type]`。",
      "`id` 就是提交前的 `this.#log.length`；`ts` 来自构造参数里的 `clock`（默认 `Date.now`），" +
        "要检查它是非负的安全整数，而且不是 `-0`（`Object.is`）。事件对象本身也要 `Object.freeze`。\n" +
        "`events` 是缓存的快照：第一次读取时把日志复制成一个冻结的新数组并记在一个私有字段里，之后直接返回它；" +
        "提交新事件时把这个缓存清掉（书中的 `self._snapshot = None`，第二个动作的后一半）。" +
        "于是两次读取之间没有 append 就返回同一个数组，旧快照也永远不会变长。",
      "`subscribe(listener)` 返回取消函数，调用两次也无害。用 `Set` 存一个包装对象 `{ listener }`，" +
        "这样同一个函数订阅两次算两份，各自取消。通知时遍历订阅者的副本，每次调用 `listener` 都" +
        "包在 `try/catch` 里，错误交给 `onListenerError(error, event)`：事件已经提交，" +
        "一个订阅者失败既不能丢掉事件，也不能让后面的订阅者收不到。" +
        "轮到某个订阅者之前它可能已被前面的订阅者取消：投递前先看它的包装对象是否还在订阅集合里，不在就跳过。",
      "订阅者在收到事件时又调用了 `append` 怎么办？如果立刻递归通知，后面的订阅者会先看到 #1 再看到 #0。" +
        "形状：一个待投递队列和一个“正在投递”的标志。通知一条事件时：\n" +
        "  1. 把事件连同此刻的订阅者名单（audience）一起放进队列；\n" +
        "  2. 如果已经在投递（说明这次 append 来自某个订阅者），到此为止：外层的循环会接着投递它；\n" +
        "  3. 否则置起标志，循环从队首取出一条、逐个投递给它的 audience，直到队列为空；\n" +
        "  4. 用 try/finally 放下标志，哪怕投递中途出了错。\n" +
        "这样每个订阅者都按 id 顺序收到事件。`audience` 要在 append 的那一刻记下：" +
        "在投递过程中才订阅的订阅者，只能收到它订阅之后追加的事件，哪怕更早的事件还在队列里等着。",
    ],
    needs: ["05.1"],
  },
  {
    id: "05.3",
    kind: "core",
    title: "The projection: which events become messages",
    titleZh: STEP_TITLES_ZH["05.3"],
    bookSection: "5.4 节",
    file: "projection.ts",
    test: "05.3-projection.test.ts",
    answerDir: chapterDir,
    decoys: [
      { name: "projection-includes-tool-call", mistake: "tool/call is projected as a second assistant message" },
      { name: "projection-drops-reasoning", mistake: "reasoning_content is not carried into the assistant message" },
      {
        name: "projection-drops-empty-content",
        mistake: 'an assistant reply with content "" is dropped like content null',
      },
    ],
    hints: [
      "5.4 节的表：只有 `user/message`、`assistant/message`、`tool/result` 三种事件变成消息；" +
        "其余（`turn/*`、`step/*`、`request/header`、`tool/call`、未知类型）一律返回 `null`，只留在日志里。" +
        "`deriveMessages` 只是按日志顺序对每个事件调用 `deriveEventMessage`，跳过 `null`。",
      '`isEventOfType(event, "tool/result")`（来自 chapters/05-session-log/events.ts）收窄类型后就能读 ' +
        "`event.data.call_id`。注意改名：事件里的 `call_id` 在消息里叫 `tool_call_id`。" +
        "`tool/call` 不投影，因为同一个请求已经在 assistant 消息的 `tool_calls` 里了，重复发送没有意义。",
      "assistant 消息有三个细节：`reasoning_content` 缺省时给 `null`（不是 `undefined`，键也不能省）；" +
        "`tool_calls` 的每一项只取 `{ id, name, arguments }`，建新对象（`chapters/common/messages.ts` 的 `toolCallOf` 就做这件事）；只有 `content === null`、" +
        '没有思考内容、也没有工具调用时才丢弃这条回复——空字符串 `""` 也是回复，要保留。',
      "assistant 分支分三步想：\n" +
        "  1. 从 `event.data` 取出三个字段；`reasoning_content` 可能缺省，让它落到 `null`（解构默认值或 `??` 都行）。\n" +
        '  2. 这条回复是不是什么都没说？正文是 `null`（`""` 不算）、没有思考内容、没有工具调用，三者同时成立才返回 `null`。\n' +
        "  3. 否则返回 assistant 消息，四个键一个不少；`tool_calls` 逐项复制，只留 id、name、arguments（提示 3）。\n" +
        "user 和 tool 分支各是一行 `return { role: …, … }`。",
    ],
    needs: ["05.2"],
  },
  {
    id: "05.4",
    kind: "core",
    title: "Session.fromLog: replay a stored log",
    titleZh: STEP_TITLES_ZH["05.4"],
    bookSection: "5.6 节",
    file: "session.ts",
    test: "05.4-replay.test.ts",
    answerDir: chapterDir,
    decoys: [
      {
        name: "replay-accepts-id-gap",
        mistake: "replay only checks that ids increase, so a gap or a log numbered from 1 passes",
      },
      { name: "replay-shares-input", mistake: "replay keeps the caller's data objects instead of frozen copies" },
      {
        name: "replay-index-one-based",
        mistake: "the ReplayError counts entries from 1, so its index points past the broken entry",
      },
    ],
    hints: [
      "`Session.fromLog(log)` 不信任输入（它通常来自 `JSON.parse` 读回的文件）。先确认是数组，" +
        "再逐个检查；出错就抛 `ReplayError(index, code, detail)`：`index` 是出问题的事件位置，" +
        "`code` 说明违反了哪条规则（可用的 code 列在 session.ts 开头的注释里，测试会逐个检查）。规则见 5.6 节：id 连续、类型、时间戳、JSON 数据。",
      "每个事件按这个顺序检查：是对象（不是 null、不是数组）→ 只有 `id`、`type`、`ts`、`data` 四个键 → " +
        "`id === index`（从 0 开始，没有空缺和重复）→ `type` 是非空字符串 → `ts` 是非负安全整数 → " +
        "`data` 经 `freezeJson` 后是 JSON 对象，已知类型还要通过 `checkEventData`。" +
        "把 `JsonValueError`、`EventDataError` 转成 `ReplayError`，别让它们原样漏出去。",
      "重放不能走 `append`：append 会用时钟生成新的 `ts`，还会通知订阅者。需要一个私有的提交路径，" +
        "例如 `#commit(event)`：推入 `#log`，清掉快照缓存（05.2 的 append 也可以共用它）。" +
        "`fromLog` 是 static 方法，但写在类里面，所以可以访问新实例的 `#` 私有成员。" +
        "数据要重新冻结：重放出来的会话不能和调用方的输入共享任何对象。",
      "形状：先读 `log` 是不是数组、有多长，再用下标从 0 循环到长度（不用 `forEach`：它会跳过稀疏数组里的空洞），" +
        "每一项交给一个私有方法 `#readStoredEvent(stored, index)` 检查，通过就 `#commit`。" +
        "读取本身也可能出错：log 或某一项可能是 Proxy、带 getter，读的时候抛错。把“读”包进 `try/catch`：" +
        "读 log 时出错是 `NOT_A_LOG`，读第 index 项或它的字段时出错是 `NOT_AN_EVENT`，都把原错误放进 " +
        "`{ cause: error }`。字段用一次解构取出：`{ id, type, ts, data, ...extra }`，多余的键就在 `extra` 里；" +
        "再按提示 2 的顺序逐条检查。错误信息里描述找到的值用给定的 `describeValue`，不要 `JSON.stringify`：" +
        "id 可能是 bigint，也可能是嵌套 5,000 层的数组。",
    ],
    needs: ["05.1", "05.2", "05.3"],
  },
  {
    id: "05.5",
    kind: "core",
    title: "runAgent: the logged agent loop",
    titleZh: STEP_TITLES_ZH["05.5"],
    bookSection: "5.5、5.7 节",
    file: "agent-loop.ts",
    test: "05.5-agent-loop.test.ts",
    answerDir: chapterDir,
    decoys: [
      {
        name: "loop-skips-step-end-on-error",
        mistake: "no finally: a step whose model call throws is never closed with step/end",
      },
      {
        name: "loop-system-as-message",
        mistake: "the system prompt is logged as a user/message and sent as conversation",
      },
      {
        name: "loop-reasoning-undefined",
        mistake: "reasoning_content logged without ?? null, so a reply that omits it logs undefined",
      },
      { name: "loop-throws-on-tool-error", mistake: "tools run without runToolCall, so a failing tool ends the run" },
      {
        name: "loop-step-open-on-append-error",
        mistake: "the try holds the model call only, so an append that throws after it (a reply the log refuses) leaves the step open",
      },
    ],
    hints: [
      "把第 02 章循环里的“往 history 里 push”全部换成 `session.append(…)`，发给模型的消息每次都用 " +
        "`session.deriveMessages()` 现算。一次计算器往返正好 12 条事件：`turn/start`、`user/message`、" +
        "`request/header`、`step/start`、`assistant/message`、`tool/call`、`tool/result`、`step/end`、`step/start`、" +
        "`assistant/message`、`step/end`、`turn/end`（5.5、5.7 节）。",
      "系统提示词和工具说明不是消息：每轮写一次 `request/header`，紧跟在 `turn/start`、`user/message` 之后" +
        "（测试检查这个顺序）：" +
        '`{ header: { model: client.model, system: systemPrompt, tools: tools.map(toolSpec) }, reason: "initial" }`；' +
        "调用 `client.chat({ system, tools, messages })` 时用同一份 system 和 tools。" +
        "传入已有的 `session` 时是继续对话：`turn` = 日志里 `turn/start` 的个数 + 1。",
      "每一步：`step/start` → `await client.chat(…)` → `assistant/message`（没有思考内容就写 `null`）→ " +
        "对每个工具调用先 `tool/call` 再 `tool/result`。未知工具、参数不是合法 JSON、工具抛错都不能中断循环：" +
        "`runToolCall(toolsByName, call)`（chapters/common/tools.ts）已经把它们变成 `{ content, is_error: true }`。" +
        '回复里没有工具调用时本轮结束：`turn/end { reason: "completed" }`。',
      "收尾的形状：写下 step/start 之后，这一步的其余部分（请求模型、记录回复和工具）放进 `try`，" +
        "step/end 写在它的 `finally` 里——模型调用抛错时，这一步也照样闭合。\n" +
        '步数用完：`turn/end { reason: "max_steps" }`，正常返回 session。模型调用失败：在外层 `catch` 里先写 ' +
        '`turn/end { reason: "error", message }`，再 `throw new AgentRunError(message, session, { cause: error })`——' +
        "日志一条不丢。",
    ],
    needs: ["05.1", "05.2", "05.3"],
  },
  // The book's 练习 as code (练习1 is a question: its model answer is solutions/05-session-log/练习1.md).
  {
    id: "p2",
    kind: "practice",
    title: "A coding assistant's inspection and UI events that never reach the model",
    titleZh: STEP_TITLES_ZH["p2"],
    bookSection: "练习2",
    file: "coding-assistant.ts",
    test: "p2-coding-assistant.test.ts",
    answerDir: solutionsDir,
    decoys: [
      {
        name: "coding-assistant-file-read-projects",
        mistake: "recordFileRead also writes a user/message, so the inspection event reaches the model",
      },
      {
        name: "coding-assistant-lax-schemas",
        mistake: "schemas check JSON types only: any string is a sha256, any number a byte count",
      },
      {
        name: "coding-assistant-counts-chars",
        mistake: "bytes is the string's length (UTF-16 units), not its UTF-8 byte count",
      },
    ],
    hints: [
      "练习2 只需要两样东西：新事件类型的运行时 schema，和两个记录函数。类型已经通过声明合并（declaration merging）加进 " +
        '`SessionEventMap`（`given/coding-assistant.ts` 里已经给出），所以 `session.append("ui/diff-preview", …)` 能通过类型检查；' +
        "但运行时只有 `codingAssistantSchemas` 里的 zod schema 能挡住坏数据——现在它是空对象 `{}`，" +
        "所以“append rejects …”那几个测试会失败。这两种事件不进模型：章节的投影只认三种类型，什么都不用改。",
      "schema 照 chapters/05-session-log/events.ts 的写法：`ui/diff-preview` 是一个 `z.strictObject`，`path` 为非空字符串（`.min(1)`），`diff` 为字符串；" +
        "`inspect/file-read` 的 `bytes` 是非负整数（`z.number().int().nonnegative()`），`sha256` 是 64 个小写十六进制字符" +
        "（`z.string().regex(/^[0-9a-f]{64}$/)`）。Session 用 `new Session({ schemas: codingAssistantSchemas })` 接上它们，" +
        "append 和 `Session.fromLog` 都会检查。",
      "`recordDiffPreview` 只有一行：append 一条 `ui/diff-preview`，数据就是 path 和 diff，返回提交后的事件。" +
        '`recordFileRead` 记录大小和摘要，绝不记录内容：字符串的字节数用 `Buffer.byteLength(content, "utf8")`' +
        "（不是 `content.length`——中文一个字符占 3 个字节），`Uint8Array` 用 `content.byteLength`；" +
        '摘要用 `createHash("sha256").update(content).digest("hex")`（来自 "node:crypto"），它两种输入都接受。',
      "最后在注释里写下“为什么不进模型”（书里练习2 问的就是这个）。可以这样想：diff 预览里的编辑，" +
        "模型是在哪条事件里提出的？它已经在历史里了吗？文件的内容，模型已经从哪条事件拿到过？" +
        "一个哈希和一个字节数，对下一次回答有什么用，又要占多少上下文？想清楚再写，然后用下面的命令对照答案：\n" +
        "  npm run compare -- p2",
    ],
    needs: [],
  },
  {
    id: "p3",
    kind: "practice",
    title: "Redaction over an append-only log",
    titleZh: STEP_TITLES_ZH["p3"],
    bookSection: "练习3",
    file: "redaction.ts",
    test: "p3-redaction.test.ts",
    answerDir: solutionsDir,
    decoys: [
      {
        name: "redaction-drops-message",
        mistake: "a redacted event's message is dropped instead of masked, breaking call/result pairing",
      },
      {
        name: "redaction-strips-calls",
        mistake: "a redacted assistant message loses its tool_calls, orphaning their results",
      },
      {
        name: "redaction-export-raw",
        mistake: "only the model projection is masked; the export shows the raw content",
      },
      {
        name: "redaction-skips-invalid",
        mistake: "a stored redaction that cannot apply is silently ignored instead of reported",
      },
      { name: "redaction-edits-raw", mistake: "the redaction overwrites the logged event's content in place" },
      {
        name: "redaction-reply-leaves-call",
        mistake: "redacting an assistant message leaves its arguments in the tool/call events",
      },
      {
        name: "redaction-tool-call-model-unmasked",
        mistake: "a redacted tool/call's arguments still reach the model in the assistant message's tool_calls entry",
      },
    ],
    hints: [
      "练习3 的思路：日志只追加，所以“删除”本身也是一个事件——`log/redact { target_id, reason }`。" +
        "原始事件永远不变；每个派生视图（给模型的消息、给界面/审计的导出）读日志时应用遮蔽。" +
        "因为遮蔽记录在日志里，重放自然会复现它。先写 `redact`：检查目标，合法才 append，不合法抛 " +
        "`RedactionError` 且什么都不追加。",
      "`redact(session, targetId, reason)` 的三条规则，错误类和错误码在 `given/redaction.ts` 里：目标 id 不存在 → `UNKNOWN_TARGET`；" +
        "目标不在这条遮蔽之前 → `TARGET_NOT_EARLIER`（刚追加时不可能，但从磁盘读回的日志里可能出现）；" +
        "目标类型不能遮蔽 → `NOT_REDACTABLE`。能遮蔽的只有 user/message、assistant/message、tool/call、tool/result；" +
        "边界、request/header 和另一条遮蔽都不行。`redactionId` 就是这条遮蔽将得到的 id，即 `session.events.length`。" +
        "把检查写成一个函数，两个视图读旧日志时还要复用它。",
      "两个视图共用一步：按日志顺序扫一遍每条 `log/redact`，重新做提示 2 的检查，遮蔽它的目标，把结果记进 " +
        "`Map<事件 id, { data: 遮蔽后的新 data, redaction: { by, reason } }>`（同一事件被遮蔽两次，后一条覆盖前一条）。" +
        "同一次调用的参数记了两处：`tool/call` 事件里，以及它之前最近那条 assistant/message 的 `tool_calls` 里（同一个 id）。" +
        "目标是 `tool/call` 时，那条 assistant 里的那一项也要遮蔽，记在 assistant 事件名下；目标是 assistant/message 时，" +
        "它发起的那些 `tool/call` 事件也要遮蔽，各记在自己名下。再把被遮蔽的事件换成 `{ ...event, data: 遮蔽后的新 data }`" +
        "——新对象，不要碰冻结的原事件。然后 `deriveRedactedMessages` = 章节的 `deriveMessages`（从 " +
        "chapters/05-session-log/projection.ts 导入）作用在这份视图上；`exportTranscript` 列出每个事件，加上 `redaction` 字段（没被遮蔽就是 null）。",
      "遮蔽后的 data 怎么写：user/message 与 tool/result 的 `content` → `redactionMarker(reason)`（tool/result 的 " +
        "`call_id` 保留，配对不断）；tool/call 的 `arguments` → `redactedArguments(reason)`，发起它的 assistant/message 里" +
        "同一 id 那一项的 `arguments` 也换（其他调用不动）；assistant/message：" +
        "`content` 为 null 时保持 null，否则换成标记，`reasoning_content` 有内容才换，每个 tool call 保留 `id`、`name`，" +
        "只换 `arguments`。规则是“遮蔽不能增减消息”：投影会丢掉 content 为 null 且没有思考内容、没有调用的回复，" +
        "所以不能把 null 变成标记。",
    ],
    needs: [],
  },
  {
    id: "p4",
    kind: "practice",
    title: "A new process event (model/usage) and a derived view for a cost dashboard",
    titleZh: STEP_TITLES_ZH["p4"],
    bookSection: "练习4",
    file: "usage-view.ts",
    test: "p4-usage-view.test.ts",
    answerDir: solutionsDir,
    decoys: [
      { name: "usage-view-cache", mistake: "the view reads running totals kept by recordUsage, not the log" },
      {
        name: "usage-view-last-call-wins",
        mistake: "each usage event replaces its turn's row instead of adding to it",
      },
      {
        name: "usage-view-counts-steps",
        mistake: "turn and step are counted over the whole log, not read from the open step",
      },
      { name: "usage-view-no-hit-check", mistake: "the schema allows more cache-hit tokens than prompt tokens" },
    ],
    hints: [
      "练习4：一种新的过程事件 `model/usage`（每次模型调用后记一次花了多少 token），再为一个消费者（成本面板）" +
        "提供派生视图 `usageByTurn(events)`，它的每一项是面板上的一行。关键是视图只从事件算出来，不在别处保存累计值，" +
        "所以同一份日志——实时的或一周后从磁盘重放的——总给出同样的数字，模型也看不到这些事件。" +
        "先写 schema：桩里的 `usageSchemas` 还是空的 `{}`，所以检查坏数据的测试会失败。",
      "schema：`turn`、`step` 是正整数，三个 token 数是非负整数，外加一条跨字段规则：缓存命中不能超过 prompt 总数。" +
        '用 `z.strictObject({...}).refine((u) => u.prompt_cache_hit_tokens <= u.prompt_tokens, { message, path: ["prompt_cache_hit_tokens"] })`' +
        "——`path` 让错误指向那个字段，测试会检查它。",
      "`recordUsage(session, usage)` 不接收 turn 和 step 参数，而是从日志里读：从最后一个事件往前找，先遇到 " +
        "`step/end` 说明没有打开的步骤 → 抛 `UsageError`；先遇到 `step/start` 就用它的 `turn`、`step`。" +
        "只记录三个计数：从 usage 里逐个取出 `prompt_tokens`、`completion_tokens`、`prompt_cache_hit_tokens`——" +
        "API 的 usage 对象可能还有别的字段，不要把整个对象 append 进去。",
      "`usageByTurn` 的形状：每次调用新建一个 `Map<number, TurnUsage>`（不要放在模块级缓存里），" +
        '遍历事件，只看 `isEventOfType(event, "model/usage")` 的，按 `turn` 累加 `modelCalls`、`promptTokens`、' +
        "`completionTokens`、`cacheHitTokens`，以及 `cacheMissTokens += prompt_tokens - prompt_cache_hit_tokens`；" +
        "最后 `[...rows.values()].sort((a, b) => a.turn - b.turn)`。没有 usage 事件就返回 `[]`。",
    ],
    needs: [],
  },
  // Past the book (挑战 / challenge): where the 对照官方 table says the official harness goes further.
  {
    id: "05.6",
    kind: "challenge",
    title: "Incremental projection: each event projected once, when committed",
    titleZh: STEP_TITLES_ZH["05.6"],
    bookSection: "对照官方（derive_messages 一行）",
    file: "message-cache.ts",
    test: "05.6-incremental.test.ts",
    answerDir: chapterDir,
    decoys: [
      {
        name: "message-cache-shared-array",
        mistake: "messages() hands out the cache's own array, so a caller's push shows up in every later call",
      },
      {
        name: "message-cache-unfrozen",
        mistake: "a new array each call, but of the cache's own unfrozen messages: a caller's edit shows up later",
      },
      {
        name: "message-cache-reprojects",
        mistake: "the cache keeps the events and projects them all again on every messages() call",
      },
      {
        name: "session-full-projection",
        replaces: "session.ts",
        mistake: "the session still projects the whole log on every deriveMessages() call (the 05.5 state)",
      },
      {
        name: "session-cache-by-subscriber",
        replaces: "session.ts",
        mistake: "the messages are kept by a subscriber: a listener's own append reaches it late, and a replayed log never",
      },
    ],
    hints: [
      "书里对照官方的那一行：官方“每个派生视图节点只处理一次”。现在的 `deriveMessages()` 每次都把整份日志重新投影一遍，" +
        "而循环在每次请求模型前都要调用它：会话越长，每一步越贵（`npm run bench` 的图就是这条曲线）。" +
        "改法：事件**提交时**就用 05.3 的 `deriveEventMessage` 投影一次，把得到的消息按顺序存起来；" +
        "`messages()` 只是把存好的交出去，不再投影，也不读日志。",
      "`project(event)` 先检查顺序：`event.id` 必须等于已经投影过的事件数（一个计数器，**不是**消息数——" +
        "大多数事件不产生消息）。不相等就抛 `RangeError`，消息里写 `expected event #N, got #M`，什么都不改。" +
        "这道检查替你抓接线错误：漏掉了 fromLog 提交的事件，或者同一个事件喂了两次，都会在下一次 `project` 立刻报出来。",
      "交出去的东西别人会乱改：`push`、`length = 0`、`reverse()`、改某条消息的 `content`、往 `tool_calls` 里塞东西。" +
        "所以消息在 `project` 时冻结一次（消息本身、`tool_calls` 数组、每个调用对象），`messages()` 每次返回一个新数组" +
        "（`this.#messages.slice()`）——数组是新的，里面的消息是同一批冻结对象，测试会检查“同一个对象”，证明没有重新投影。" +
        "（另一种做法：缓存一个冻结的数组，直到下一次有新消息；两种都能过测试，`npm run bench` 量得出差别。）",
      "接线在你的 session.ts 里，三处：\n" +
        '  readonly #messages = new MessageCache();              // import { MessageCache } from "./message-cache.ts"\n' +
        "  #commit(event) { this.#messages.project(event); this.#log.push(event); /* 清掉快照缓存 */ }\n" +
        "  deriveMessages(): Message[] { return this.#messages.messages(); }\n" +
        "先投影再推入日志：投影失败的事件也就没有提交。`append` 和 `fromLog` 都必须经过这个 `#commit`。" +
        "不要用 `subscribe` 喂缓存：订阅者里的 append 要等那个订阅者返回后才轮到它，而 `fromLog` 根本不通知任何订阅者。",
    ],
    needs: ["05.1", "05.2", "05.3", "05.4"],
    alsoEdits: [
      {
        file: "session.ts",
        whatZh:
          "接线：#messages = new MessageCache()，#commit 里的 this.#messages.project(event)，deriveMessages() 返回 this.#messages.messages()",
        what: "the wiring: #messages = new MessageCache(), this.#messages.project(event) in #commit, deriveMessages() returning this.#messages.messages()",
      },
    ],
  },
  {
    id: "05.7",
    kind: "challenge",
    title: "The log on disk: a JSONL subscriber, a reader that survives a torn tail, crash repair",
    titleZh: STEP_TITLES_ZH["05.7"],
    bookSection: "5.3 节第 3 点、5.6 节、对照官方（subscribe 一行）",
    file: "log-file.ts",
    test: "05.7-log-on-disk.test.ts",
    answerDir: path.join(chapterDir, "disk"),
    decoys: [
      {
        name: "log-file-skips-bad-lines",
        mistake: "the reader skips a line that is not JSON wherever it is, so a damaged file loads with events missing",
      },
      {
        name: "log-file-torn-drops-all",
        mistake: "a torn last line makes the reader give up on the whole file, losing every good event before it",
      },
      {
        name: "log-file-repair-edits-last",
        mistake: "repair rebuilds the log with its last event overwritten by the closing turn/end, instead of appending",
      },
      {
        name: "log-file-buffered-writer",
        mistake: "the writer appends through an async stream, so an event the session acknowledged may not be in the file yet",
      },
      {
        name: "log-file-counts-lines",
        mistake: "the writer only compares line counts, so it appends to another session's log of the same length",
      },
      {
        name: "log-file-no-change-check",
        mistake: "the writer never checks the file before a write, so two sessions attached to one file interleave",
      },
      {
        name: "log-file-repair-skips-calls",
        mistake: "repair closes the step and the turn but leaves unanswered tool calls without a result",
      },
      {
        name: "log-file-line-is-index",
        mistake: "a ReplayError's event index is reported as the line number, one line too early",
      },
      {
        name: "log-file-no-lock",
        mistake: "the writer never takes the file's lock, so a second run (or a repair) can write the same log",
      },
      {
        name: "log-file-swallows-failure",
        mistake: "the writer catches its own failed write and only prints it, so the run goes on and calls the log saved",
      },
      {
        name: "log-file-repair-any-open-log",
        mistake: "repair closes whatever is left open without checking the loop's order, so it hides a log no crash could leave",
      },
      {
        name: "log-file-never-flushes",
        mistake: "the writer writes each line but never calls fsyncSync, so a power loss can take events that append acknowledged",
      },
      {
        name: "log-file-leaves-partial-line",
        mistake: "a write the disk refuses partway leaves its partial line in the file, which the next reader calls a torn line",
      },
      {
        name: "log-file-torn-before-tail",
        mistake: "the reader drops an unterminated tail, then treats the line before it as torn too, so a damaged line is never reported",
      },
    ],
    hints: [
      "这是挑战，书里没有现成代码：5.3 节说订阅者“会立即收到新事件”，对照官方表说持久化插件“订阅 session/event”。" +
        '所以落盘就是一个订阅者：每条事件一行 `JSON.stringify(event) + "\\n"`（JSONL）。' +
        "关键在“什么时候算写进去了”：`append` 返回时，这一行必须已经在文件里——用 `writeSync`（再 `fsyncSync`），" +
        "不能用 `createWriteStream` 或 `appendFile` 这类异步写法，它们要等事件循环，进程这时被杀就丢了。",
      "`attachLogFile` 先看文件：不存在或为空，就把会话里已有的事件全写进去；否则文件内容必须**逐字节**等于这些事件的行" +
        "（`Buffer.equals`），只比行数不够——别的会话的日志可能恰好一样长。不相等就抛 " +
        '`new LogFileError("NOT_THIS_LOG", file, undefined, …)`，说出第一条不同的行。' +
        "之后每次写之前用 `fstatSync(fd).size` 核对文件大小仍是自己写过的字节数：不等说明别的写入者写过，" +
        '抛 `FILE_CHANGED`，绝不接着写。用 `openSync(file, "a+")` 打开：能读，写入总在末尾。' +
        "最先做的一件事是 `lockLogFile(file)`（`log-lock.ts` 给出）：一份日志同一时刻只有一个写入者，别的进程会被它拒绝；" +
        "它还会先建好文件、拒绝不是普通文件的路径（FIFO、`/dev/null`），所以要在打开文件之前调用。" +
        "`writeSync` 返回写了多少字节，可能不到一行（磁盘快满时）：剩下的要接着写。" +
        "写失败时（`writeSync` 抛出 EFBIG、ENOSPC，或上面的 `FILE_CHANGED`）：先用 `ftruncateSync(fd, size)` 收回自己写了一半的行" +
        "（不然下次读取会把它当成崩溃撕裂的尾行），再取消订阅、关文件、释放锁，最后**抛出** `LogFileError`（`WRITE_FAILED`）。" +
        "Session 会把订阅者抛出的错误交给 `onListenerError`：隔离是为了别的订阅者照常收到事件，不是为了让失败悄无声息——" +
        "会话的主人（demo）在那里决定停下，不再调用模型。只 `console.error` 不抛，就是把隔离变成了沉默。",
      '读：按字节找 `\\n` 切行（`bytes.indexOf(0x0a, start)`），每行用 `new TextDecoder("utf-8", { fatal: true })` 解码再 ' +
        "`JSON.parse`。只有**最后一行**可以是坏的：没有换行结尾（`unterminated`），或整行不是 JSON（`not-json`）——" +
        "丢掉它、记进 `torn: { line, reason, bytes }`，前面的全部保留。更早的坏行抛 `BAD_LINE`，带行号，绝不跳过。" +
        "解析完交给 `Session.fromLog`；它抛的 `ReplayError` 的 `index` 从 0 数，行号从 1 数：`line = index + 1`，" +
        "原错误放进 `{ cause }`。文件开头（跳过空白）是 `[` 就当作整个 JSON 数组解析。" +
        "编辑器可能在开头加 UTF-8 BOM（`EF BB BF`）：先跳过并记下 `bom`，再判断格式；一个事件都读不出来的文件抛 `NOTHING_READ`，不能当空日志。" +
        "`readLogFile` 先用 `O_NONBLOCK` 打开再 `fstatSync`：不是普通文件（文件夹、`/dev/zero`、FIFO）就抛 `NOT_A_FILE`。",
      "修复只能追加，而且只修崩溃留得下的日志：循环按固定顺序追加事件，进程只会停在两次追加之间，" +
        "所以给定的 `whereTheLoopStopped(events)`（`loop-order.ts`）说出它停在哪里，或者第一条循环不可能写在那里的事件" +
        "（这时抛 `new RepairError(index, why)`，什么都不追加）。`closingEvents` 按顺序列出要追加的事件：" +
        "流式分片之后还没有消息，先补 `assistant/message { ...assembleInterrupted(分片), chunk_ids, interrupted: true }`（返回 null 就不补）；" +
        "正在运行的调用补错误结果；要过却没开始的调用先补 `tool/call` 再补错误结果；打开的步骤 `step/end`；" +
        '最后 `turn/end`：最终回答已经记下就是 `"completed"`（`TURN_FINISHED`），否则 `"interrupted"`（`TURN_INTERRUPTED`）。' +
        "`repairLog` 把它们逐条 `session.append`，返回同一个 session——挂在它上面的写入者会把修复也写进文件。",
    ],
    needs: [],
  },
  {
    id: "05.8",
    kind: "challenge",
    title: "Stream chunks: kept in the log, never sent to the model",
    titleZh: STEP_TITLES_ZH["05.8"],
    bookSection: "本章开头第 1 个问题（流式分片）、对照官方（agent-loop 一行）",
    file: "streamed-step.ts",
    test: "05.8-streamed-step.test.ts",
    answerDir: path.join(chapterDir, "stream"),
    decoys: [
      {
        name: "stream-last-reasoning-delta",
        mistake: "each reasoning delta replaces the one before (as the SDK's .stream() helper does), so only the last is kept",
      },
      {
        name: "stream-tool-calls-by-id",
        mistake:
          "tool-call fragments are joined by id (a fragment without one goes to the last id seen), so interleaved parallel calls get each other's arguments",
      },
      {
        name: "stream-projects-chunks",
        mistake: "each text delta is logged as an assistant/message, so the projection sends the fragments to the model",
      },
      {
        name: "stream-message-before-chunks",
        mistake: "the chunks are collected in memory and logged after the message, so nothing is in the log while the reply streams",
      },
      {
        name: "stream-drops-interrupted",
        mistake: "a stream that fails is rethrown with no message: the text the user already saw is lost",
      },
      { name: "stream-retry-cites-all", mistake: "a retried call's message cites every chunk of the step, the failed attempt's too" },
      {
        name: "stream-interrupted-keeps-calls",
        mistake: "the interrupted message keeps the half-written tool calls, which the model would then wait to see answered",
      },
    ],
    hints: [
      "本章开头的第一个理由：流式分片“要留存，但发给模型只会浪费 token、制造噪音”。所以分片是只进日志的事件 " +
        "`assistant/chunk`（投影本来就跳过它），发给模型的只有由分片拼成的那条 `assistant/message`。" +
        "先写两个纯函数：`assembleReply` 把完整的流拼成非流式调用会返回的消息；`assembleInterrupted` 只留下用户已经看到的文字。",
      "拼接的细节：文字和思考内容各自按到达顺序连接，一个分片都没有就是 `null`，只来过空分片就是空字符串。" +
        "工具调用按 `index` 归组，而不是按 `id`：只有一个调用的第一个分片带 id 和名字，后面的分片只有 index 和一段参数；" +
        "并行的两个调用的分片还会交错到达。最后按 index 排序。思考内容要累加每一段，不能只留最后一段（SDK 的 `.stream()` 就是这样丢的）。" +
        "被中断时：文字、思考内容各自只在含有非空白字符时保留；工具调用的片段一律丢掉；什么都不剩就返回 `null`。",
      "`streamReply` 的顺序：先从日志派生消息，再调用 `client.stream`；每到一个分片就立刻 `append` 一条 `assistant/chunk`，" +
        "同时记下它的 id 和分片本身（这一次尝试专用的两个数组）；流正常结束后，用 `assembleReply` 拼出回复，" +
        "追加 `assistant/message`，带上 `chunk_ids`，返回回复。每追加一个分片后检查一次 signal，被中止就别再等下一个分片。",
      "失败时（`try/catch` 包住整个读流和拼接）：还有尝试次数、signal 也没被中止，就进入下一次尝试——attempt 加一，" +
        "分片数组重新开始，失败那次的分片留在日志里，但不被新消息引用。否则先看 `assembleInterrupted` 的结果，" +
        "不是 `null` 就追加带 `interrupted: true` 的消息（引用这次尝试的分片），然后把原来的错误原样抛出，让循环去关闭步骤和轮次。",
    ],
    needs: [],
  },
];

const kindOrder: readonly StepKind[] = ["core", "practice", "challenge"];

/** Steps in the order a learner takes them: core, practice, challenge; within a kind, as listed. */
export function inLearnerOrder(list: readonly Step[]): Step[] {
  return [...list].sort((a, b) => kindOrder.indexOf(a.kind) - kindOrder.indexOf(b.kind));
}

export const steps: readonly Step[] = inLearnerOrder(entries);

/**
 * Where the book has the step, as a Chinese line says it: `对应书中 5.4 节`, `对应书中练习2` (no space
 * before a Chinese word), `对应本章开头…` (本章 is the book's chapter already).
 */
export function whereInBook({ bookSection }: Pick<Step, "bookSection">): string {
  if (bookSection.startsWith("本章")) return `对应${bookSection}`;
  return /^\d/u.test(bookSection) ? `对应书中 ${bookSection}` : `对应书中${bookSection}`;
}

export function findStep(id: string): Step | undefined {
  return steps.find((step) => step.id === id);
}

/** Where a step's instructions are, as a learner would open it. */
export function guideLink(step: Step): string {
  return `exercises/05-session-log/README.md#${guideAnchor(step.id)}`;
}

export interface Decoy {
  readonly name: string;
  /** What is wrong with it, as the check reports it. */
  readonly mistake: string;
  /** The step whose tests must catch it. */
  readonly step: Step;
  readonly file: string;
  /** The learner's file it stands in for (absolute): the step's own, unless the entry says otherwise. */
  readonly replaces: string;
}

export const decoys: readonly Decoy[] = steps.flatMap((step) =>
  step.decoys.map(({ name, mistake, replaces = step.file }) => ({
    name,
    mistake,
    step,
    file: path.join(decoysDir, `${name}.ts`),
    replaces: path.join(exercisesDir, replaces),
  })),
);

/** The files learners edit, each once (05.2 and 05.4 share session.ts). */
export function learnerFiles(): string[] {
  return [...new Set(steps.map((step) => path.join(exercisesDir, step.file)))];
}

/** Every file a learner edits, mapped to the answer that stands in for it in the answers run. */
export function answerFiles(): Map<string, string> {
  return new Map(steps.map((step) => [path.join(exercisesDir, step.file), path.join(step.answerDir, step.file)]));
}

/** Every file a learner edits, mapped to its shipped stub: the stubs run and reset both read these. */
export function shippedStubs(): Map<string, string> {
  return new Map(steps.map((step) => [path.join(exercisesDir, step.file), path.join(shippedStubsDir, step.file)]));
}
