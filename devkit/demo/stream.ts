// Submits simulated envelopes while traffic runs, the way an SDK would (small batches every few
// hundred ms), so the server receives each attempt about when it was sent: windows and the release
// diff split attempts by receive time, so a batch posted at the end would all land after a deploy.

import { type Envelope, submitEnvelopes } from "../simulate";

export class EnvelopeStream {
  private buffer: Envelope[] = [];
  private timer: ReturnType<typeof setInterval> | null = null;
  private sending: Promise<void> = Promise.resolve();
  accepted = 0;
  failures = 0;

  constructor(
    private readonly endpoint: string,
    private readonly apiKey: string,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  push(envelope: Envelope): void {
    this.buffer.push(envelope);
  }

  start(intervalMs = 250): this {
    this.timer ??= setInterval(() => void this.flush(), intervalMs);
    return this;
  }

  /** Sends what is buffered (one send at a time, in order). */
  flush(): Promise<void> {
    this.sending = this.sending.then(async () => {
      if (this.buffer.length === 0) return;
      const batch = this.buffer;
      this.buffer = [];
      try {
        this.accepted += (await submitEnvelopes(this.endpoint, this.apiKey, batch, { maxRetries: 3 })).accepted;
      } catch (error) {
        this.failures++;
        this.onError(error);
      }
    });
    return this.sending;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}
