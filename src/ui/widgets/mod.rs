//! Small drawing helpers that know no UI state: fitting and wrapping text, the colour theme,
//! and the frame of the screen (top bar, body, footer, pop-ups).
//!
//! May import nothing else of the UI.

pub mod columns;
pub mod layout;
pub mod text;
pub mod theme;
