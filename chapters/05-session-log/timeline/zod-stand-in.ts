// Stands in for zod inside the page's script (page.ts bundles it with `alias`). events.ts builds its
// schemas as it is imported, but the page never checks an event against them: the log it draws was
// checked by Session.fromLog or written by a Session. Real zod would be ~470 kB of every page.
// Building a schema here gives back the stand-in itself; using one to check anything throws.
type Inert = ((...args: unknown[]) => Inert) & { readonly [key: string]: Inert };

function refuse(): never {
  throw new Error("zod is not bundled into the timeline page: check events with Session.fromLog before drawing them");
}

const inert: Inert = new Proxy((() => inert) as Inert, {
  get: (_target, key) => (key === "parse" || key === "safeParse" ? refuse : inert),
});

export const z = inert;
