/** A step of work held at an exact moment until the test lets it go: races tested without sleeps. */
export interface Gate {
  /** Resolves once the held step has reached the gate. */
  readonly reached: Promise<void>;
  /** Lets the held step go on. */
  release(): void;
  /** Called by the held step: marks the gate reached, and resolves when it is released. */
  wait(): Promise<void>;
}

export function gate(): Gate {
  let arrive = (): void => {};
  let go = (): void => {};
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (go = resolve));
  return {
    reached,
    release: () => go(),
    wait: () => {
      arrive();
      return released;
    },
  };
}
