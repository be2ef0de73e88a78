//! `hookhost`'s Node addon (napi-rs): the native half of the `hookhost` npm package.
