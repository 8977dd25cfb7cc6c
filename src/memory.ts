export { memoryMailer } from './mailers/memory/memory-mailer'
export type { MemoryMailer } from './mailers/memory/memory-mailer'
export { memoryStore } from './stores/memory/memory-store'
