/** Milliseconds to wait per Retry-After (delta-seconds or an HTTP date), or null when absent or invalid. */
export declare function retryAfterMs(header: string | null, now?: number): number | null;
