//! hookhost's C ABI as a static library: every function of `hookhost-capi` (whose source and
//! header, `capi/include/hookhost.h`, this archive shares), archived with everything it uses.

pub use hookhost_capi::*;
