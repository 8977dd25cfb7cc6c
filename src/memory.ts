/**
 * In-memory reference adapters: `memoryStore()`, `memoryMailer()` and
 * `memoryRateLimitStore()`, for tests and for trying the library; not for a service
 * with more than one process.
 *
 * @module passcode-auth/memory
 */
export { memoryMailer } from './mailers/memory/memory-mailer'
export type { MemoryMailer } from './mailers/memory/memory-mailer'
export { memoryStore } from './stores/memory/memory-store'
export { memoryRateLimitStore } from './service/limiter/memory-rate-limit-store'
export type { MemoryRateLimitStore, MemoryRateLimitStoreOptions } from './service/limiter/memory-rate-limit-store'
