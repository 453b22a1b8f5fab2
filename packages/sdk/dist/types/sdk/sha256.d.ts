/** SHA-256 of the UTF-8 bytes of `text`, as lower-case hex. */
export declare function sha256Hex(text: string): string;
