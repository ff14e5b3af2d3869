/** A filter of uvu's output into `write`: its own "Skipped:" count dropped, each note on a line of its own. */
export declare function uvuOutput(write: (text: string) => void): {
  receive(chunk: string): void;
  end(): void;
};
