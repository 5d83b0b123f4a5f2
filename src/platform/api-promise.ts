import type { Headers } from '../http/client.js';

/** What came with an answer besides its body. */
export interface ResponseMeta {
  status: number;
  headers: Headers;
  requestId: string | undefined;
  /**
   * The server answered with the stored response of an earlier request with the same key: a header
   * said so (Idempotent-Replayed or another spelling of stored-answer.ts). Only the server's word:
   * an object's time against the server's Date is two clocks (review18b R1, review19 F7).
   */
  replayed: boolean;
  /** An earlier attempt of this call lost its answer: a replayed answer may be that attempt's. */
  afterLostAnswer: boolean;
  /** When the attempt this answers was sent, by the client's clock (ApiResponse.sentAt). */
  sentAt?: number;
}

export interface WithResponse<T> {
  data: T;
  response: ResponseMeta;
}

/**
 * openai-node's APIPromise: awaiting it gives the checked body, `.withResponse()` gives the body
 * and the response's status, headers and request id (e.g. Idempotent-Replayed for bulk runs).
 */
export class ApiPromise<T> extends Promise<T> {
  readonly #response: Promise<WithResponse<T>>;
  #data: Promise<T> | undefined;

  constructor(response: Promise<WithResponse<T>>) {
    // The base promise is a placeholder: then/catch/finally below answer from `response`.
    super((resolve) => resolve(undefined as T));
    this.#response = response;
  }

  // Promises derived with then() are plain promises, not ApiPromises without a response.
  static override get [Symbol.species]() {
    return Promise;
  }

  withResponse(): Promise<WithResponse<T>> {
    return this.#response;
  }

  #body(): Promise<T> {
    this.#data ??= this.#response.then((answer) => answer.data);
    return this.#data;
  }

  // biome-ignore lint/suspicious/noThenProperty: this is a promise; then() must answer with the body
  override then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#body().then(onfulfilled, onrejected);
  }

  override catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.#body().catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#body().finally(onfinally);
  }
}
