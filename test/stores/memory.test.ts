import { memoryStore } from '../../src/stores/memory/memory-store'
import { storeConformance } from '../conformance/store'

// One memory store is one storage: its "peer" is the store itself, as several
// createPasscodeAuth instances of one process would share it.
storeConformance('memoryStore', {
  open: async () => {
    const store = memoryStore()
    return { store, peer: async () => store, close: () => store.close() }
  },
})
