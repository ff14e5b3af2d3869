/** The one-line refusal for a Node `version` that cannot run troupe, or undefined when it can. */
export declare function refusal(version: string): string | undefined;
