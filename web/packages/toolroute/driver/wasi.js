// A minimal WASI preview 1 for toolroute.wasm: exactly the imports Go's
// wasip1 runtime makes, with no file system, no arguments and no environment.
// The same code serves Node, the browser and workerd, where node:wasi is not
// available. Standard output and error go to the callbacks given.

const ERRNO_SUCCESS = 0;
const ERRNO_BADF = 8;
const ERRNO_INVAL = 28;

const CLOCK_REALTIME = 0;

// ProcExit is thrown when the module calls proc_exit: the Go runtime does that
// when it fails fatally (out of memory, for one). The instance is dead.
export class ProcExit extends Error {
  constructor(code) {
    super(`the module exited with code ${code}`);
    this.code = code;
  }
}

export class WASI {
  // options.stdout, options.stderr: functions called with each line written.
  constructor(options = {}) {
    this.memory = null;
    const decoder = new TextDecoder();
    const pending = { 1: "", 2: "" };
    const sinks = { 1: options.stdout ?? (() => {}), 2: options.stderr ?? (() => {}) };
    const view = () => new DataView(this.memory.buffer);
    const bytes = () => new Uint8Array(this.memory.buffer);
    const monotonicStart = typeof performance !== "undefined" ? performance.now() : 0;

    this.imports = {
      args_sizes_get(argc, bufSize) {
        view().setUint32(argc, 0, true);
        view().setUint32(bufSize, 0, true);
        return ERRNO_SUCCESS;
      },
      args_get() {
        return ERRNO_SUCCESS;
      },
      environ_sizes_get(count, bufSize) {
        view().setUint32(count, 0, true);
        view().setUint32(bufSize, 0, true);
        return ERRNO_SUCCESS;
      },
      environ_get() {
        return ERRNO_SUCCESS;
      },
      clock_time_get(id, _precision, out) {
        let ns;
        if (id === CLOCK_REALTIME) {
          ns = BigInt(Date.now()) * 1000000n;
        } else {
          const ms = typeof performance !== "undefined" ? performance.now() - monotonicStart : Date.now();
          ns = BigInt(Math.round(ms * 1e6));
        }
        view().setBigUint64(out, ns, true);
        return ERRNO_SUCCESS;
      },
      fd_write(fd, iovs, iovsLen, nwritten) {
        if (fd !== 1 && fd !== 2) return ERRNO_BADF;
        const v = view();
        let total = 0;
        for (let i = 0; i < iovsLen; i++) {
          const ptr = v.getUint32(iovs + i * 8, true);
          const len = v.getUint32(iovs + i * 8 + 4, true);
          pending[fd] += decoder.decode(bytes().subarray(ptr, ptr + len), { stream: true });
          total += len;
        }
        let nl;
        while ((nl = pending[fd].indexOf("\n")) >= 0) {
          sinks[fd](pending[fd].slice(0, nl));
          pending[fd] = pending[fd].slice(nl + 1);
        }
        view().setUint32(nwritten, total, true);
        return ERRNO_SUCCESS;
      },
      fd_close() {
        return ERRNO_BADF;
      },
      fd_fdstat_get(fd, out) {
        if (fd > 2) return ERRNO_BADF;
        const v = view();
        v.setUint8(out, 2); // character device
        v.setUint16(out + 2, 0, true);
        v.setBigUint64(out + 8, 0n, true);
        v.setBigUint64(out + 16, 0n, true);
        return ERRNO_SUCCESS;
      },
      fd_fdstat_set_flags() {
        return ERRNO_SUCCESS;
      },
      fd_prestat_get() {
        return ERRNO_BADF; // no preopened directories
      },
      fd_prestat_dir_name() {
        return ERRNO_BADF;
      },
      // The module never sleeps on the host (no timers in the core): every
      // clock subscription is reported as due at once.
      poll_oneoff(inPtr, outPtr, nsubs, nevents) {
        if (nsubs === 0) return ERRNO_INVAL;
        const v = view();
        for (let i = 0; i < nsubs; i++) {
          const sub = inPtr + i * 48;
          const ev = outPtr + i * 32;
          v.setBigUint64(ev, v.getBigUint64(sub, true), true);
          v.setUint16(ev + 8, ERRNO_SUCCESS, true);
          v.setUint8(ev + 10, v.getUint8(sub + 8));
          v.setBigUint64(ev + 16, 0n, true);
          v.setUint16(ev + 24, 0, true);
        }
        v.setUint32(nevents, nsubs, true);
        return ERRNO_SUCCESS;
      },
      proc_exit(code) {
        throw new ProcExit(code);
      },
      random_get(ptr, len) {
        for (let off = 0; off < len; off += 65536) {
          crypto.getRandomValues(bytes().subarray(ptr + off, ptr + Math.min(len, off + 65536)));
        }
        return ERRNO_SUCCESS;
      },
      sched_yield() {
        return ERRNO_SUCCESS;
      },
    };
  }

  // start binds the shim to an instance and runs its _initialize.
  initialize(instance) {
    this.memory = instance.exports.memory;
    instance.exports._initialize();
  }
}
