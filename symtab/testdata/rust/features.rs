// Exercises the Rust v0 mangling: nested closures, generics with () and
// tuples, trait objects, async, const generics, impl Trait, unicode
// identifiers, shims, higher-ranked fn pointers. Built by gen.sh; symbols
// only matter, the program just has to keep them alive.
use std::future::Future;
use std::hint::black_box;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

pub trait Shape {
    fn area(&self) -> f64;
    fn scaled<T: Into<f64>>(&self, k: T) -> f64
    where
        Self: Sized,
    {
        self.area() * k.into()
    }
}

pub struct Square<T>(pub T);
pub struct Unit;

impl<T: Copy + Into<f64>> Shape for Square<T> {
    #[inline(never)]
    fn area(&self) -> f64 {
        let s: f64 = self.0.into();
        s * s
    }
}

impl Shape for Unit {
    #[inline(never)]
    fn area(&self) -> f64 {
        1.0
    }
}

impl<T> Square<T> {
    #[inline(never)]
    pub fn side(&self) -> &T {
        &self.0
    }
}

#[inline(never)]
pub fn nested(x: i32) -> i32 {
    let outer = |a: i32| {
        let mid = |b: i32| {
            let inner = |c: i32| c + a + b;
            let inner2 = |c: i32| c * a * b;
            black_box(inner(b)) + black_box(inner2(b))
        };
        let mid2 = |b: i32| b - a;
        black_box(mid(a)) + black_box(mid2(a))
    };
    black_box(outer(x))
}

#[inline(never)]
pub fn generic<T: std::fmt::Debug, U>(t: T, _u: U) -> String {
    format!("{:?}", t)
}

pub struct Arr<const N: usize, const B: bool, const C: char, const I: i64>;

impl<const N: usize, const B: bool, const C: char, const I: i64> Arr<N, B, C, I> {
    #[inline(never)]
    pub fn get(&self) -> usize {
        black_box(N)
    }
}

#[inline(never)]
pub fn consts<const X: i8, const Y: u128, const Z: i128>() -> i128 {
    black_box(X as i128 + Y as i128 + Z)
}

#[inline(never)]
pub fn make_iter(n: u32) -> impl Iterator<Item = u32> {
    (0..n).map(move |x| x * n).filter(|x| x % 3 == 0)
}

#[inline(never)]
pub fn dyn_call(f: &dyn Fn(&str) -> bool, g: Box<dyn FnMut(u8) -> u8 + Send>) -> bool {
    let mut g = g;
    f("x") && g(1) == 2
}

#[inline(never)]
pub fn dyn_iter(it: &mut dyn Iterator<Item = (u8, &'static str)>) -> usize {
    it.count()
}

#[inline(never)]
pub fn fn_ptrs(
    a: fn(&u8) -> &u8,
    b: for<'a, 'b> fn(&'a str, &'b str) -> &'a str,
    c: unsafe extern "C" fn(*const u8, *mut u16) -> !,
    d: extern "system" fn(),
) -> usize {
    black_box(a as usize) + black_box(b as usize) + black_box(c as usize) + black_box(d as usize)
}

#[inline(never)]
pub fn arrays(a: [u8; 4], s: &[(u16, i64)], p: *const [f32; 2], t: (char,)) -> usize {
    a.len() + s.len() + black_box(p as usize) + black_box(t.0 as usize)
}

unsafe extern "C" fn diverge(_: *const u8, _: *mut u16) -> ! {
    std::process::abort()
}

extern "system" fn sys() {}

pub mod ünïcödé {
    pub struct Größe<T>(pub T);
    impl<T: Copy> Größe<T> {
        #[inline(never)]
        pub fn 名前(&self) -> T {
            self.0
        }
    }
    #[inline(never)]
    pub fn каша() -> u32 {
        std::hint::black_box(7)
    }
}

async fn leaf(x: u32) -> u32 {
    x + 1
}

async fn chain(x: u32) -> u32 {
    let a = leaf(x).await;
    let b = async move { leaf(a).await * 2 }.await;
    b
}

struct Noop;
impl Wake for Noop {
    fn wake(self: Arc<Self>) {}
}

#[inline(never)]
fn block_on<F: Future>(f: F) -> F::Output {
    let waker = Waker::from(Arc::new(Noop));
    let mut cx = Context::from_waker(&waker);
    let mut f = Box::pin(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

pub trait Visitor<'a> {
    type Out;
    fn visit(&mut self, s: &'a str) -> Self::Out;
}

pub struct Counter;
impl<'a> Visitor<'a> for Counter {
    type Out = usize;
    #[inline(never)]
    fn visit(&mut self, s: &'a str) -> usize {
        s.len()
    }
}

#[inline(never)]
pub fn visit_dyn(v: &mut dyn for<'a> Visitor<'a, Out = usize>) -> usize {
    v.visit("abc")
}

static TABLE: [fn(i32) -> i32; 2] = [nested, |x| x + 1];

const fn seed() -> u32 {
    7
}
const SEED: u32 = seed();

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Pair<A, B> {
    pub a: A,
    pub b: B,
}

fn main() {
    let sq = Square(3u8);
    let shapes: Vec<Box<dyn Shape>> = vec![Box::new(Square(2.5f32)), Box::new(Unit)];
    let mut total = sq.area() + sq.scaled(2u16) + *sq.side() as f64;
    for s in &shapes {
        total += s.area();
    }
    total += nested(black_box(3)) as f64;
    let _ = generic((), ());
    let _ = generic((1u8, "a"), (2i64,));
    let _ = generic(Pair { a: (), b: [1u32; 3] }, Unit);
    let _ = generic(Some(Pair::<(), ()>::default()), ((), ((),)));
    total += Arr::<3, true, 'x', -5>.get() as f64;
    total += Arr::<0, false, 'ä', { i64::MAX }>.get() as f64;
    total += Arr::<7, false, '\n', { i64::MIN }>.get() as f64;
    total += Arr::<1, true, '\'', 0>.get() as f64;
    total += Arr::<2, true, '😀', 1>.get() as f64;
    total += consts::<-128, { u128::MAX }, { i128::MIN }>() as f64;
    total += make_iter(10).sum::<u32>() as f64;
    let captured = black_box(1u8);
    total += dyn_call(&|s: &str| s.len() == 1, Box::new(move |x| x + captured)) as u8 as f64;
    let mut it = vec![(1u8, "a"), (2, "b")].into_iter();
    total += dyn_iter(&mut it) as f64;
    total += fn_ptrs(|x| x, |a, _| a, diverge, sys) as f64 * 0.0;
    total += arrays([1; 4], &[(1, 2)], std::ptr::null(), ('c',)) as f64 * 0.0;
    total += ünïcödé::Größe(2u64).名前() as f64 + ünïcödé::каша() as f64;
    total += block_on(chain(SEED)) as f64;
    total += visit_dyn(&mut Counter) as f64;
    total += TABLE[1](black_box(2)) as f64;
    let p = Pair { a: 1u8, b: "x" };
    let q = p.clone();
    total += (p == q) as u8 as f64;
    println!("{total} {:?}", q);
    let h = std::thread::spawn(move || {
        let v: Vec<_> = (0..4).map(|i| (0..i).map(|j| j * 2).collect::<Vec<u32>>()).collect();
        v.len()
    });
    total += h.join().unwrap() as f64;
    black_box(total);
}
