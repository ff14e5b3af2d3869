/**
 * The one-line refusal for a Node `version` that cannot run troupe, or undefined when it can;
 * `command` (the arguments after `node`) is named back as run on the Node npm installs.
 */
export declare function refusal(version: string, command?: readonly string[]): string | undefined;
