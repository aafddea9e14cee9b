// Package sdkcheck holds tests that check the hand-written wire structs of
// registry/wire against the official OpenAI and Anthropic Go SDKs: our request
// bodies must decode into the SDKs' request types, and responses the SDKs'
// types encode must parse in our decoders. The SDKs are test dependencies
// only; nothing in the module links them.
package sdkcheck
