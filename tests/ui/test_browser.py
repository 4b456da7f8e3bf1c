"""The inspector page (`zepkit ui`) in a real headless browser: Debian's Chromium driven by
Selenium through the system chromedriver, named explicitly (nothing is downloaded).

The `tests-ui` nox session installs the browser when it is missing and sets
`ZEPKIT_REQUIRE_BROWSER`, so there a missing browser fails instead of skipping. Set
`ZEPKIT_UI_SCREENSHOT=PATH` to save the page as this test sees it (the README's
docs/inspector.png is that picture reduced to a 64-colour palette, to stay small).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from zepkit.core import Identity, MemoryLoop
from zepkit.core._cli import DEMO_USER, inspector_server, run_demo
from zepkit.core._inspector.server import InspectorServer


def _found(variable: str, *names: str) -> str | None:
    return os.environ.get(variable) or next(filter(None, map(shutil.which, names)), None)


CHROMIUM = _found("ZEPKIT_CHROMIUM", "chromium", "chromium-browser", "google-chrome")
DRIVER = _found("ZEPKIT_CHROMEDRIVER", "chromedriver")
if not (CHROMIUM and DRIVER):
    if os.environ.get("ZEPKIT_REQUIRE_BROWSER"):
        raise RuntimeError("the browser tests need chromium and chromedriver on PATH")
    pytest.skip(
        "no chromium and chromedriver here (nox -s tests-ui installs them)", allow_module_level=True
    )

from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

pytestmark = pytest.mark.slow
SCREENSHOT = (
    os.environ.get("ZEPKIT_UI_SCREENSHOT") and Path(os.environ["ZEPKIT_UI_SCREENSHOT"]).resolve()
)
QUESTION = "Which beach should Biscuit and I try this weekend, and what snack can I bring?"
HOSTILE = (
    "<script>document.body.dataset.pwned = 'script'</script>"
    "<img src=x onerror=\"document.body.dataset.pwned = 'img'\"> I love <b>bold</b> tea & cake."
)


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new",
        "--no-sandbox",  # as root (CI) Chromium's sandbox cannot start
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1000",
        "--force-device-scale-factor=1",
        "--hide-scrollbars",
    ):
        options.add_argument(argument)
    service = webdriver.ChromeService(executable_path=str(DRIVER))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _wait(driver: webdriver.Chrome, check: Any, seconds: float = 60) -> Any:
    return WebDriverWait(driver, seconds).until(lambda d: check(d) or None)


def _open(driver: webdriver.Chrome, server: InspectorServer) -> None:
    driver.get(server.url)
    _wait(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))


def _text(element: Any) -> str:
    return str(element.get_attribute("textContent"))


def _pick(driver: webdriver.Chrome, css: str) -> None:
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, css))[0].click()


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The database `zepkit demo` leaves behind."""
    db = tmp_path_factory.mktemp("demo") / "zepkit-demo.db"
    with contextlib.redirect_stdout(io.StringIO()):
        assert asyncio.run(run_demo(str(db))) == 0
    return db


def test_the_page_shows_the_demo_and_previews_begin_turns_block(
    browser: webdriver.Chrome, demo_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(demo_db.parent)  # the page names the file as the user gave it
    browser.set_window_size(1280, 1440)
    with inspector_server(demo_db.name).start() as server:
        _open(browser, server)
        assert _text(browser.find_element(By.ID, "mode")) == "read-only"
        user = f'#users li[data-user-id="{DEMO_USER.user_id}"]'
        _pick(browser, user)
        facts = _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#facts .fact.current"))
        assert any("allergic to peanuts" in _text(fact) for fact in facts)
        entities = _text(browser.find_element(By.ID, "entities"))
        assert "Biscuit" in entities

        _pick(browser, f'#threads li[data-thread-id="{DEMO_USER.thread_id}"]')
        _wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#messages .msg")) == 6)

        thread = browser.find_element(By.ID, "preview-thread")
        thread.clear()
        thread.send_keys("demo-session-2")
        browser.find_element(By.ID, "preview-message").send_keys(QUESTION)
        browser.find_element(By.ID, "preview-run").click()
        block_box = _wait(browser, lambda d: d.find_element(By.ID, "preview-block"))
        _wait(browser, lambda d: block_box.is_displayed() and _text(block_box))
        shown = _text(block_box)
        size = _text(browser.find_element(By.ID, "preview-size"))
        picture = tmp_path / "inspector.png"
        assert browser.save_screenshot(str(picture))
        assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        if SCREENSHOT:
            shutil.copyfile(picture, SCREENSHOT)
        assert not _text(browser.find_element(By.ID, "status"))

    async def turn() -> str:
        identity = Identity(
            user_id=DEMO_USER.user_id, thread_id="demo-session-2", first_name="Maya"
        )
        async with MemoryLoop.local(demo_db, on_error="raise") as memory:
            return await memory.begin_turn(identity, QUESTION)

    block = asyncio.run(turn())
    assert "<ZEP_CONTEXT>" in block
    assert shown == block  # the page showed exactly what the turn then got
    assert size.startswith(f"{len(block)} characters · about {-(-len(block) // 4)} tokens")


@pytest.fixture
def hostile_db(tmp_path: Path) -> Path:
    db = tmp_path / "hostile.db"

    async def build() -> None:
        identity = Identity(user_id="<b>eve</b>", thread_id="<i>t</i>", first_name="<u>Eve</u>")
        async with MemoryLoop.local(db, on_error="raise") as memory:
            await memory.begin_turn(identity, HOSTILE)
            await memory.capture_reply(identity, HOSTILE)
            await memory.begin_turn(identity, "My cat <script>Tom</script> likes fish.")
            await memory.begin_turn(identity, "I live in Lisbon.")
            await memory.begin_turn(identity, "I moved to Porto.")

    asyncio.run(build())
    return db


def test_stored_markup_shows_as_text(browser: webdriver.Chrome, hostile_db: Path) -> None:
    with inspector_server(str(hostile_db)).start() as server:
        _open(browser, server)
        _pick(browser, "#users li")
        assert _text(browser.find_element(By.ID, "user-title")) == "<b>eve</b> (<u>Eve</u>)"
        _pick(browser, "#threads li")
        contents = _wait(
            browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#messages .msg .content")
        )
        assert [_text(content) for content in contents][:2] == [HOSTILE, HOSTILE]
        facts = _text(browser.find_element(By.ID, "facts"))
        assert "<script>Tom</script>" in facts
        [ended] = browser.find_elements(By.CSS_SELECTOR, "#facts .fact.ended")
        assert "I live in Lisbon." in _text(ended)
        assert "ended by “<u>Eve</u>: I moved to Porto.”" in _text(ended)
        assert browser.find_elements(By.CSS_SELECTOR, "#main img, #main b, #main script") == []
        assert len(browser.find_elements(By.TAG_NAME, "script")) == 1  # the page's own
        assert browser.execute_script("return document.body.dataset.pwned") is None


def test_deleting_a_thread_and_a_user_takes_the_flag_and_the_id_typed_again(
    browser: webdriver.Chrome, demo_db: Path, tmp_path: Path
) -> None:
    db = tmp_path / "copy.db"
    db.write_bytes(demo_db.read_bytes())
    with inspector_server(str(db)).start() as server:
        _open(browser, server)
        _pick(browser, "#users li")
        _pick(browser, "#threads li")
        _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#messages .msg"))
        assert browser.find_elements(By.CSS_SELECTOR, "#thread-delete button") == []
        assert browser.find_elements(By.CSS_SELECTOR, "#user-delete button") == []
    with inspector_server(str(db), allow_delete=True).start() as server:
        _open(browser, server)
        assert _text(browser.find_element(By.ID, "mode")) == "deleting allowed"
        _pick(browser, "#users li")
        _pick(browser, '#threads li[data-thread-id="demo-session-2"]')
        _pick(browser, "#thread-delete button")
        typed = browser.find_element(By.CSS_SELECTOR, "#thread-delete .confirm input")
        go = browser.find_element(By.CSS_SELECTOR, "#thread-delete .confirm button.danger")
        typed.send_keys("demo-session")
        assert not go.is_enabled()
        typed.send_keys("-2")
        assert go.is_enabled()
        go.click()
        listed = (
            "return [...document.querySelectorAll('#threads li')].map(li => li.dataset.threadId)"
        )
        _wait(browser, lambda d: d.execute_script(listed) == ["demo-session-1"])
        assert not _text(browser.find_element(By.ID, "status"))
        threads = asyncio.run(_listed(db, lambda memory: memory.list_threads(DEMO_USER.user_id)))
        assert [thread.thread_id for thread in threads] == ["demo-session-1"]

        _pick(browser, "#user-delete button")
        typed = browser.find_element(By.CSS_SELECTOR, "#user-delete .confirm input[type=text]")
        go = browser.find_element(By.CSS_SELECTOR, "#user-delete .confirm button.danger")
        typed.send_keys(DEMO_USER.user_id)
        browser.find_element(By.CSS_SELECTOR, "#user-delete .confirm input[type=checkbox]").click()
        go.click()
        _wait(browser, lambda d: _text(d.find_element(By.ID, "users")) == "No users yet.")
        assert not browser.find_element(By.ID, "user-view").is_displayed()
        assert not _text(browser.find_element(By.ID, "status"))
    assert asyncio.run(_listed(db, lambda memory: memory.list_users())) == []
    assert b"Biscuit" not in db.read_bytes()  # the box asked for the file to be rewritten


async def _listed(db: Path, listing: Any) -> list[Any]:
    async with MemoryLoop.local(db, on_error="raise") as memory:
        return list((await listing(memory)).items)
