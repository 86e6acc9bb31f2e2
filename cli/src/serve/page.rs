//! The page at `/`: one self-contained HTML document, its style and script inline and nothing
//! loaded from elsewhere, put together from the files in `page/` at compile time. The script
//! draws the board as SVG from `GET /api/v1/VARIANT/board` and lists the moves from
//! `GET /api/v1/VARIANT`; the URL (`/?variant=english&fen=W:WK19,K23:BK28,12`) carries the
//! position.

use std::sync::LazyLock;

const TEMPLATE: &str = include_str!("page/index.html");
const STYLE: &str = include_str!("page/style.css");
const SCRIPT: &str = include_str!("page/app.js");

static PAGE: LazyLock<String> = LazyLock::new(|| {
    TEMPLATE
        .replacen("/*STYLE*/", STYLE, 1)
        .replacen("/*SCRIPT*/", SCRIPT, 1)
});

/// The page's HTML.
pub fn html() -> &'static str {
    &PAGE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_is_one_document_with_its_style_and_script_inline() {
        let page = html();
        assert!(page.starts_with("<!doctype html>"));
        assert!(!page.contains("/*STYLE*/") && !page.contains("/*SCRIPT*/"));
        assert!(page.contains(STYLE) && page.contains(SCRIPT));
        // Nothing is fetched from elsewhere: no external script, style or font.
        assert!(!page.contains("src=\"http") && !page.contains("href=\"http"));
        assert!(!page.contains("@import") && !page.contains("url("));
        assert_eq!(page.matches("</script>").count(), 1);
    }
}
