// Package sdkcheck holds tests that check the hand-written wire structs of
// registry/wire against the official SDKs: OpenAI's (Chat Completions and
// the Responses API), Anthropic's, and Google's Gen AI SDK for Gemini. Our
// request bodies must decode into the SDKs' request types and lose nothing
// when the SDK encodes them again, and responses the SDKs' types build (or,
// where those types only read, responses as the SDK reads them) must parse
// in our decoders to the same thing. The SDKs are test dependencies only;
// nothing in the module links them.
package sdkcheck
