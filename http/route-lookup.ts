/** The route @koa/router would run, found with one map lookup where one can: see docs/benchmarks.md, "One router, one lookup". */
import compose, { type ComposedMiddleware } from 'koa-compose';
import type { ParameterizedContext } from 'koa';
import type { AppState, RouteMiddleware, RouteParams } from './state.ts';

/** What of a router layer the lookup reads (the layers of route-table.ts's router). */
interface Layer {
  readonly path: string | RegExp;
  readonly methods: readonly string[];
  readonly paramNames: readonly unknown[];
  readonly stack: readonly unknown[];
  readonly regexp: RegExp;
  params(path: string, captures: string[], existing?: Record<string, string>): Record<string, string>;
}
type Run = ComposedMiddleware<ParameterizedContext<AppState, RouteParams>>;

/** The one layer a request runs, its middleware composed, and its path's parameters. */
export interface Found {
  readonly layer: Layer;
  readonly run: Run;
  readonly params: Record<string, string>;
}

/** A layer and its middleware composed, by the methods it answers (HEAD where the router answers it). */
type ByMethod = ReadonlyMap<string, { readonly layer: Layer; readonly run: Run }>;

/** The path's literal start, before its first parameter, pattern or escape. */
const literalPrefix = (path: string): string => {
  const end = path.search(/[:*{}()\\[\]?+!]/);
  return end === -1 ? path : path.slice(0, end);
};

/** The layers of one path by method, where the router would run exactly one of them. */
function byMethod(layers: readonly Layer[]): ByMethod {
  const methods = new Map<string, Layer[]>();
  for (const layer of layers) for (const m of layer.methods) methods.set(m, [...(methods.get(m) ?? []), layer]);
  const found = new Map<string, { layer: Layer; run: Run }>();
  for (const [m, [layer, ...more]] of methods)
    // A layer's stack holds what mountRoutes registered: RouteMiddleware (the router's own context type is wider).
    if (layer && more.length === 0) found.set(m, { layer, run: compose(layer.stack as unknown as RouteMiddleware[]) });
  return found;
}

/**
 * Where the router's answer is one map lookup away, that lookup; undefined for every request the
 * router must match itself (a method a path does not have, a path of another shape).
 */
export function routeLookup(router: {
  readonly stack: readonly Layer[];
}): (path: string, method: string) => Found | undefined {
  const stack = router.stack;
  const pathOf = (l: Layer): string => String(l.path);
  const parameterised = stack.filter((l) => l.paramNames.length > 0);
  // A plain path is answered by its own layers alone (route-table.ts narrows the others' expressions).
  const plain = new Map<string, ByMethod>();
  for (const layer of stack)
    if (layer.paramNames.length === 0 && !plain.has(pathOf(layer)))
      plain.set(pathOf(layer), byMethod(stack.filter((l) => pathOf(l) === pathOf(layer))));
  // `<prefix>:name` takes one whole last segment; kept only if no other layer's literal start
  // could reach a path of that shape (one is a prefix of the other), so nothing else matches it.
  const segment = new Map<string, ByMethod>();
  for (const layer of parameterised) {
    const path = pathOf(layer);
    const prefix = literalPrefix(path);
    if (segment.has(prefix) || !prefix.endsWith('/') || !/^:\w+$/.test(path.slice(prefix.length))) continue;
    const rivals = parameterised.filter((l) => {
      const other = literalPrefix(pathOf(l));
      return pathOf(l) !== path && (prefix.startsWith(other) || other.startsWith(prefix));
    });
    if (rivals.length === 0) segment.set(prefix, byMethod(parameterised.filter((l) => pathOf(l) === path)));
  }
  return function lookup(path, method) {
    const own = plain.get(path);
    if (own !== undefined) {
      const one = own.get(method);
      return one && { layer: one.layer, run: one.run, params: {} };
    }
    const one = segment.get(path.slice(0, path.lastIndexOf('/') + 1))?.get(method);
    const captures = one?.layer.regexp.exec(path);
    return one && captures
      ? { layer: one.layer, run: one.run, params: one.layer.params(path, captures.slice(1), {}) }
      : undefined;
  };
}
