/** A chat's wait for a person when the block does not say (plan format 2 on), and its limit: a working day. */
export const DESTINATION_CHAT_WAIT_DEFAULT_MIN = 10;
export const DESTINATION_CHAT_WAIT_MAX_MIN = 480;
